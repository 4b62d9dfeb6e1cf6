import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { type Engine, type Target, TARGETS } from './options';

export interface BenchDatabases {
  /** A DATABASE_URL per server: each gets its own fresh, empty database. */
  urls: Record<Target, string>;
  /** Scratch space for the run (SQLite files, DATA_DIR, profiles are elsewhere). */
  dir: string;
  drop(): Promise<void>;
}

function serverUrl(mysqlUrl: string): URL {
  const url = new URL(mysqlUrl);
  url.pathname = '/';
  return url;
}

/**
 * Fresh databases for one engine, one per server: SQLite files in a temporary directory, or new
 * MySQL databases `pwpush_bench_<random>_<server>` on the given server, dropped afterwards.
 */
export async function createDatabases(engine: Engine, mysqlUrl: string): Promise<BenchDatabases> {
  const dir = mkdtempSync(join(tmpdir(), `pwpush-bench-${engine}-`));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const perTarget = (value: (target: Target) => string) => Object.fromEntries(TARGETS.map((target) => [target, value(target)])) as Record<Target, string>;
  if (engine === 'sqlite') return { urls: perTarget((target) => `sqlite:${join(dir, `${target}.sqlite3`)}`), dir, drop: async () => removeDir() };
  const base = `pwpush_bench_${randomBytes(5).toString('hex')}`;
  const names = perTarget((target) => `${base}_${target}`);
  const admin = await createConnection({ uri: serverUrl(mysqlUrl).toString() });
  try {
    for (const name of Object.values(names)) {
      await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    }
  } finally {
    await admin.end();
  }
  const urlOf = (name: string) => {
    const url = serverUrl(mysqlUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    urls: perTarget((target) => urlOf(names[target])),
    dir,
    drop: async () => {
      removeDir();
      const connection = await createConnection({ uri: serverUrl(mysqlUrl).toString() });
      try {
        for (const name of Object.values(names)) await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await connection.end();
      }
    },
  };
}
