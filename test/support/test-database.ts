import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';
import { forPostgres } from '@app/database';

export type TestEngine = 'sqlite' | 'mysql' | 'postgres';

export interface TestDatabase {
  /** A DATABASE_URL for the app. */
  url: string;
  engine: TestEngine;
  /**
   * One statement on a connection of its own, outside the app: `?` placeholders, TRUE/FALSE for
   * booleans, as the repositories write SQL. Not for SQLite (use the app's `query`).
   */
  sql<T = any>(query: string, parameters?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** The MySQL server e2e runs target when set, e.g. mysql://root@127.0.0.1:3306 (CI sets it). */
export const E2E_MYSQL_URL = process.env.E2E_MYSQL_URL || undefined;
/** The PostgreSQL server e2e runs target when set, e.g. postgres://postgres@127.0.0.1:5432 (CI sets it). */
export const E2E_PG_URL = process.env.E2E_PG_URL || undefined;
if (E2E_MYSQL_URL && E2E_PG_URL) throw new Error('Set E2E_MYSQL_URL or E2E_PG_URL, not both: the e2e suite runs on one engine at a time.');

/** The engine of this run: a database server when one is configured, else SQLite files. */
export const E2E_ENGINE: TestEngine = E2E_PG_URL ? 'postgres' : E2E_MYSQL_URL ? 'mysql' : 'sqlite';

/** A fresh, empty database for one test file: a temporary SQLite file, or a new MySQL or PostgreSQL database. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `pwpush_e2e_${randomBytes(6).toString('hex')}`;
  switch (E2E_ENGINE) {
    case 'sqlite': {
      const dir = mkdtempSync(join(tmpdir(), 'pwpush-e2e-'));
      return {
        url: `sqlite:${join(dir, 'test.sqlite3')}`,
        engine: 'sqlite',
        sql: () => Promise.reject(new Error('On SQLite, query through the app (TestApp.query).')),
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    }
    case 'mysql':
      return createMysqlDatabase(new URL(E2E_MYSQL_URL!), name);
    case 'postgres':
      return createPostgresDatabase(new URL(E2E_PG_URL!), name);
  }
}

async function createMysqlDatabase(server: URL, name: string): Promise<TestDatabase> {
  const admin = async (statement: string) => {
    const connection = await createConnection({ uri: `${server.protocol}//${server.username}:${server.password}@${server.host}/` });
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  await admin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    engine: 'mysql',
    sql: async (query, parameters = []) => {
      const connection = await createConnection({ uri: url.toString() });
      try {
        return (await connection.query(query, parameters))[0] as never;
      } finally {
        await connection.end();
      }
    },
    drop: () => admin(`DROP DATABASE IF EXISTS \`${name}\``),
  };
}

async function createPostgresDatabase(server: URL, name: string): Promise<TestDatabase> {
  const on = async <T>(database: string, work: (client: Client) => Promise<T>): Promise<T> => {
    const url = new URL(server);
    url.pathname = `/${database}`;
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await on('postgres', (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    engine: 'postgres',
    sql: (query, parameters = []) => on(name, async (client) => (await client.query(forPostgres(query), parameters)).rows),
    // FORCE: a server process a test left behind must not keep the database alive.
    drop: () => on('postgres', (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
