import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';
import { type Engine, type Target, TARGETS } from './options';

export interface BenchDatabases {
  /** A DATABASE_URL per server: each gets its own fresh, empty database. */
  urls: Record<Target, string>;
  /** Scratch space for the run (SQLite files, DATA_DIR, profiles are elsewhere). */
  dir: string;
  /**
   * Makes `to`'s database a copy of `from`'s, which nothing may have open: the SQLite file, or a
   * PostgreSQL database made from the other as its template. Undefined on MySQL (no such copy).
   */
  copy?(from: Target, to: Target): Promise<void>;
  /** Empties `target`'s database entirely (no schema either), which nothing may have open. */
  reset(target: Target): Promise<void>;
  drop(): Promise<void>;
}

/** The server's URL with `database` as its path. */
function on(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs statements on a MySQL server (no database selected) or a PostgreSQL server's `postgres` database. */
async function admin(engine: 'mysql' | 'postgres', serverUrl: string, statements: string[]): Promise<void> {
  if (engine === 'mysql') {
    const connection = await createConnection({ uri: on(serverUrl, '') });
    try {
      for (const statement of statements) await connection.query(statement);
    } finally {
      await connection.end();
    }
    return;
  }
  const client = new Client({ connectionString: on(serverUrl, 'postgres') });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Fresh databases for one engine, one per server: SQLite files in a temporary directory, or new
 * databases `pwpush_bench_<random>_<server>` on the given MySQL or PostgreSQL server, dropped
 * afterwards.
 */
export async function createDatabases(engine: Engine, serverUrl: string): Promise<BenchDatabases> {
  const dir = mkdtempSync(join(tmpdir(), `pwpush-bench-${engine}-`));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const perTarget = (value: (target: Target) => string) => Object.fromEntries(TARGETS.map((target) => [target, value(target)])) as Record<Target, string>;
  if (engine === 'sqlite') {
    const path = (target: Target) => join(dir, `${target}.sqlite3`);
    return {
      urls: perTarget((target) => `sqlite:${path(target)}`),
      dir,
      copy: async (from, to) => {
        for (const suffix of ['-wal', '-shm']) rmSync(path(to) + suffix, { force: true });
        copyFileSync(path(from), path(to));
      },
      reset: async (target) => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(path(target) + suffix, { force: true });
      },
      drop: async () => removeDir(),
    };
  }
  const base = `pwpush_bench_${randomBytes(5).toString('hex')}`;
  const names = Object.values(perTarget((target) => `${base}_${target}`));
  const [create, drop] =
    engine === 'mysql'
      ? [(name: string) => `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`, (name: string) => `DROP DATABASE IF EXISTS \`${name}\``]
      : [(name: string) => `CREATE DATABASE "${name}"`, (name: string) => `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`];
  await admin(engine, serverUrl, names.map(create));
  return {
    urls: perTarget((target) => on(serverUrl, `${base}_${target}`)),
    dir,
    copy:
      engine === 'postgres'
        ? async (from, to) => {
            await admin(engine, serverUrl, [drop(`${base}_${to}`)]);
            // FILE_COPY copies the files after a checkpoint; the default since PostgreSQL 15
            // (WAL_LOG) writes the whole database to the WAL, a gigabyte after a prefill.
            let strategy = ' STRATEGY FILE_COPY';
            for (let attempt = 1; ; attempt++) {
              try {
                return await admin(engine, serverUrl, [`CREATE DATABASE "${base}_${to}" TEMPLATE "${base}_${from}"${strategy}`]);
              } catch (error) {
                // Before PostgreSQL 15 there was only the file copy, and no such option.
                if (strategy && /strategy/i.test(String(error))) {
                  strategy = '';
                  continue;
                }
                // An autovacuum worker visiting the fresh tables holds the template open for a moment.
                if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
                await new Promise((resolve) => setTimeout(resolve, 500));
              }
            }
          }
        : undefined,
    reset: async (target) => admin(engine, serverUrl, [drop(`${base}_${target}`), create(`${base}_${target}`)]),
    drop: async () => {
      removeDir();
      await admin(engine, serverUrl, names.map(drop));
    },
  };
}
