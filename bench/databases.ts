import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import type { Engine, Target } from './options';

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
 * Fresh databases for one engine: two SQLite files in a temporary directory, or two new MySQL
 * databases `pwpush_bench_<random>_{service,floor}` on the given server, dropped afterwards.
 */
export async function createDatabases(engine: Engine, mysqlUrl: string): Promise<BenchDatabases> {
  const dir = mkdtempSync(join(tmpdir(), `pwpush-bench-${engine}-`));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (engine === 'sqlite') {
    return {
      urls: { service: `sqlite:${join(dir, 'service.sqlite3')}`, floor: `sqlite:${join(dir, 'floor.sqlite3')}` },
      dir,
      drop: async () => removeDir(),
    };
  }
  const base = `pwpush_bench_${randomBytes(5).toString('hex')}`;
  const names: Record<Target, string> = { service: `${base}_service`, floor: `${base}_floor` };
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
    urls: { service: urlOf(names.service), floor: urlOf(names.floor) },
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
