import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerProcess, startServer } from './server-process';
import { TEST_MASTER_KEY } from './test-app';
import { createTestDatabase, E2E_ENGINE, type TestDatabase } from './test-database';

/** The multi-replica suites need a database server: SQLite is one process's file. */
export function requireServerEngine(): void {
  if (E2E_ENGINE === 'sqlite') {
    throw new Error('The multi-replica suite needs a database server: set E2E_MYSQL_URL (mysql://root@127.0.0.1:3306) or E2E_PG_URL (postgres://postgres@127.0.0.1:5432)');
  }
}

export interface Replicas {
  database: TestDatabase;
  servers: ServerProcess[];
  /** What each server was started with (for the CLI on the same database). */
  env: Record<string, string>;
}

/** Three server processes on one new database, each with `settings` beside the database, data folder and master key. */
export async function startReplicas(settings: Record<string, string>): Promise<Replicas> {
  requireServerEngine();
  const database = await createTestDatabase();
  const env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-replicas-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY, ...settings };
  const servers = await Promise.all([startServer(env), startServer(env), startServer(env)]);
  return { database, servers, env };
}
