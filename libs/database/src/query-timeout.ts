import type { DataSource } from 'typeorm';

type Callback = (error: (Error & { code?: string }) | null, ...results: unknown[]) => void;
interface PooledConnection {
  query(...args: unknown[]): unknown;
  destroy(): void;
}
interface Pool {
  on(event: 'acquire', listener: (connection: PooledConnection) => void): void;
}

const PATCHED = Symbol('pwpush.queryTimeout');

/**
 * Bounds every MySQL query of the running app by `timeoutMs`, so a database that stops answering
 * (network partition, stalled server) gives errors — 503s — instead of requests that hang.
 *
 * mysql2 times a query out but leaves the dead command at the head of the connection's queue,
 * and the pool would hand that connection out again: every later query on it would wait
 * forever without its own timer ever starting. So a connection whose query timed out is
 * destroyed, which also removes it from the pool; the pool opens fresh connections (bounded by
 * connectTimeout) once the database answers again.
 *
 * Switched on after start-up migrations, which may legitimately wait or run longer. SQLite is
 * in-process and has its own busy timeout.
 */
export function enforceQueryTimeout(dataSource: DataSource, timeoutMs: number): void {
  if (dataSource.options.type !== 'mysql') return;
  const pool = (dataSource.driver as unknown as { pool?: Pool }).pool;
  pool?.on('acquire', (connection) => patch(connection, timeoutMs));
}

function patch(connection: PooledConnection & { [PATCHED]?: true }, timeoutMs: number): void {
  if (connection[PATCHED]) return;
  connection[PATCHED] = true;
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const [sql, ...rest] = args;
    const options = typeof sql === 'string' ? { sql, timeout: timeoutMs } : { timeout: timeoutMs, ...(sql as object) };
    const last = rest.length - 1;
    if (typeof rest[last] === 'function') {
      const callback = rest[last] as Callback;
      rest[last] = ((error, ...results) => {
        if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') connection.destroy();
        callback(error, ...results);
      }) satisfies Callback;
    }
    return query(options, ...rest);
  };
}
