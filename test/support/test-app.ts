import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { UsersService } from '@app/auth';
import { Clock } from '@app/common';
import { Env, loadSettings, Settings } from '@app/config';
import { Sql } from '@app/database';
import { AppModule } from '../../apps/api/src/app.module';
import { configureApp } from '../../apps/api/src/configure-app';
import { createTestDatabase, TestDatabase } from './test-database';
import { freePort } from './helpers';

export const TEST_MASTER_KEY = 'a'.repeat(64);

/** A clock the tests move forward instead of sleeping. */
export class TestClock extends Clock {
  private offset = 0;

  override now(): number {
    return Date.now() + this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
  }
}

export interface TestApp {
  baseUrl: string;
  settings: Settings;
  clock: TestClock;
  dataSource: DataSource;
  database: TestDatabase;
  /** Creates a user and returns a valid API token for it. */
  createUser(email: string): Promise<string>;
  /** SQL with `?` placeholders (and TRUE/FALSE for booleans), as the repositories write it, on any engine. */
  query<T = any>(sql: string, parameters?: unknown[]): Promise<T[]>;
  /** A provider of the running app, for arranging state that has no HTTP endpoint. */
  service<T>(type: Type<T>): T;
  /** Stops the app; keeps the database for another app unless `drop` is set. */
  close(options?: { drop?: boolean }): Promise<void>;
}

/**
 * The real app (all modules, filters, pipes, body parsing) on a real database, listening on a
 * random port, or on `port` (when another party must know its URL before it starts, as an
 * OpenID Provider its redirect URI).
 */
export async function startTestApp(env: Env = {}, database?: TestDatabase, options: { port?: number } = {}): Promise<TestApp> {
  const db = database ?? (await createTestDatabase('migrated'));
  const settings = loadSettings({
    DATABASE_URL: db.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-data-')),
    PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
    // Errors only (their type and code, never a secret): an unexpected 500 in any run says what it was.
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'error',
    // Tests run the sweep themselves, at the moment they choose.
    EXPIRY_SWEEP_ENABLED: 'false',
    // Tests drain the outbox themselves (NotificationWorker.round), at the moment they choose.
    NOTIFICATIONS_WORKER_ENABLED: 'false',
    // Every test file's requests come from 127.0.0.1; rate-limit tests set their own limits.
    PWP__THROTTLING__MINUTE: '1000000',
    PWP__THROTTLING__SECOND: '1000000',
    ...env,
  });
  const clock = new TestClock();
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)] })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  configureApp(app, settings);
  await app.listen(options.port ?? 0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    settings,
    clock,
    dataSource: app.get(DataSource),
    database: db,
    createUser: async (email) => (await app.get(UsersService).create(email)).api_token,
    query: (sql, parameters = []) => app.get(Sql).rows(sql, parameters),
    service: (type) => app.get(type),
    close: async (options) => {
      await app.close();
      if (options?.drop) await db.drop();
    },
  };
}

/**
 * The app with mailed links on its own address: on a port chosen first, named in PWP__HOST_DOMAIN,
 * as a deployment names its public host (mailed links are built from settings, never from a
 * request), so a mail's link is the html_url its create answered.
 */
export async function startMailingTestApp(env: Env, database?: TestDatabase): Promise<TestApp> {
  const port = await freePort();
  return startTestApp({ PWP__HOST_DOMAIN: `127.0.0.1:${port}`, PWP__HOST_PROTOCOL: 'http', ...env }, database, { port });
}
