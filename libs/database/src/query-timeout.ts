import type { DataSource } from 'typeorm';
import { engineOf } from './engine';

type Callback = (error: (Error & { code?: string }) | null, ...results: unknown[]) => void;
interface PooledConnection {
  query(...args: unknown[]): unknown;
  destroy(): void;
}
interface Pool<C> {
  on(event: 'acquire', listener: (connection: C) => void): void;
}
/** What this file uses of a node-postgres client. */
interface PostgresClient {
  query(...args: unknown[]): unknown;
  end(): Promise<void>;
  connectionParameters: { query_timeout?: number };
}

const PATCHED = Symbol('pwpush.queryTimeout');

/**
 * Bounds every query of the running app by `timeoutMs`, so a database that stops answering
 * (network partition, stalled server) gives errors — 503s — instead of requests that hang.
 *
 * Switched on after start-up migrations, which may legitimately wait or run longer. SQLite is
 * in-process and has its own busy timeout.
 */
export function enforceQueryTimeout(dataSource: DataSource, timeoutMs: number): void {
  switch (engineOf(dataSource)) {
    case 'mysql':
      (dataSource.driver as unknown as { pool?: Pool<PooledConnection> }).pool?.on('acquire', (connection) => patchMysql(connection, timeoutMs));
      return;
    case 'postgres':
      (dataSource.driver as unknown as { master?: Pool<PostgresClient> }).master?.on('acquire', (client) => patchPostgres(client, timeoutMs));
      return;
    case 'sqlite':
      return;
  }
}

/**
 * mysql2 times a query out but leaves the dead command at the head of the connection's queue,
 * and the pool would hand that connection out again: every later query on it would wait
 * forever without its own timer ever starting. So a connection whose query timed out is
 * destroyed, which also removes it from the pool; the pool opens fresh connections (bounded by
 * connectTimeout) once the database answers again.
 */
function patchMysql(connection: PooledConnection & { [PATCHED]?: true }, timeoutMs: number): void {
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

/** How much longer than the server's statement_timeout node-postgres waits for an answer. */
const POSTGRES_ANSWER_GRACE_MS = 500;

/**
 * On PostgreSQL the server cancels a statement that runs longer (statement_timeout, set once per
 * connection; the connection stays usable), and node-postgres gives up on an answer that does not
 * come at all a moment later (query_timeout: a partition, a stalled server). A connection whose
 * answer did not come may still deliver it later, or never: it is closed, which also takes it out
 * of the pool (the caller's error handler runs after this one, so the pool sees the client ending
 * when it is released).
 */
function patchPostgres(client: PostgresClient & { [PATCHED]?: true }, timeoutMs: number): void {
  if (client[PATCHED]) return;
  client[PATCHED] = true;
  client.connectionParameters.query_timeout = timeoutMs + POSTGRES_ANSWER_GRACE_MS;
  const query = client.query.bind(client);
  client.query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((error: Error) => {
        if (error.message === 'Query read timeout') void client.end();
      });
    }
    return result;
  };
  // Queued ahead of the statement the client was acquired for; if it fails, so will that one.
  (query(`SET statement_timeout = ${Math.round(timeoutMs)}`) as Promise<unknown>).catch(() => undefined);
}
