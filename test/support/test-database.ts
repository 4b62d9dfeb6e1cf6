import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

export interface TestDatabase {
  /** A DATABASE_URL for the app. */
  url: string;
  engine: 'sqlite' | 'mysql';
  drop(): Promise<void>;
}

/** The MySQL server e2e runs target when set, e.g. mysql://root@127.0.0.1:3306 (CI sets it). */
export const E2E_MYSQL_URL = process.env.E2E_MYSQL_URL;

/** A fresh, empty database for one test file: a temporary SQLite file, or a new MySQL database. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!E2E_MYSQL_URL) {
    const dir = mkdtempSync(join(tmpdir(), 'pwpush-e2e-'));
    return { url: `sqlite:${join(dir, 'test.sqlite3')}`, engine: 'sqlite', drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const server = new URL(E2E_MYSQL_URL);
  const name = `pwpush_e2e_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection({ uri: `${server.protocol}//${server.username}:${server.password}@${server.host}/` });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  server.pathname = `/${name}`;
  return {
    url: server.toString(),
    engine: 'mysql',
    drop: async () => {
      const connection = await createConnection({ uri: `${server.protocol}//${server.username}:${server.password}@${server.host}/` });
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}
