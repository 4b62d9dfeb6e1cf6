import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';
import { loadSettings } from '@app/config';
import { dataSourceOptions, forPostgres, MIGRATIONS, openDataSource, runMigrations } from '@app/database';

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

/**
 * How a test database starts: `empty`, as a new deployment's first server finds it (the tests of
 * migrating, of a process's start), or `migrated`, every migration applied. A migrated database is
 * a copy of a template the migrations built once per engine and set of migrations (its name holds
 * their hash): on MariaDB the migrations' DDL took seconds per database, and most test files only
 * need the schema they leave.
 */
export type TestSchema = 'empty' | 'migrated';

/** A fresh database for one test file: a temporary SQLite file, or a new MySQL or PostgreSQL database. */
export async function createTestDatabase(schema: TestSchema = 'empty'): Promise<TestDatabase> {
  const name = `pwpush_e2e_${randomBytes(6).toString('hex')}`;
  switch (E2E_ENGINE) {
    case 'sqlite': {
      const dir = mkdtempSync(join(tmpdir(), 'pwpush-e2e-'));
      const file = join(dir, 'test.sqlite3');
      if (schema === 'migrated') copyFileSync(await sqliteTemplate(), file);
      return {
        url: `sqlite:${file}`,
        engine: 'sqlite',
        sql: () => Promise.reject(new Error('On SQLite, query through the app (TestApp.query).')),
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    }
    case 'mysql':
      return createMysqlDatabase(new URL(E2E_MYSQL_URL!), name, schema);
    case 'postgres':
      return createPostgresDatabase(new URL(E2E_PG_URL!), name, schema);
  }
}

/** The migrations' identity: a hash of the database library's sources, which hold every migration. */
const MIGRATIONS_HASH = (() => {
  const root = join(__dirname, '..', '..', 'libs', 'database', 'src');
  const hash = createHash('sha256').update(MIGRATIONS.map((migration) => migration.name).join());
  for (const file of (readdirSync(root, { recursive: true }) as string[]).filter((path) => path.endsWith('.ts')).sort()) {
    hash.update(file).update(readFileSync(join(root, file)));
  }
  return hash.digest('hex').slice(0, 16);
})();
const TEMPLATE_NAME = `pwpush_template_${MIGRATIONS_HASH}`;

/** Applies every migration to the database at `url`, as a server's start does. */
async function migrate(url: string): Promise<void> {
  const settings = loadSettings({ DATABASE_URL: url, PWPUSH_MASTER_KEY: 'a'.repeat(64), DATA_DIR: tmpdir() });
  const dataSource = await openDataSource(await dataSourceOptions(settings));
  try {
    await runMigrations(dataSource, { log: () => undefined } as never);
  } finally {
    await dataSource.destroy();
  }
}

let sqliteTemplateFile: Promise<string> | undefined;
/** The migrated SQLite file, built once per machine and set of migrations (renamed into place whole, so a reader never sees half of one). */
function sqliteTemplate(): Promise<string> {
  return (sqliteTemplateFile ??= (async () => {
    const file = join(tmpdir(), `${TEMPLATE_NAME}.sqlite3`);
    if (!existsSync(file)) {
      const dir = mkdtempSync(join(tmpdir(), 'pwpush-template-'));
      await migrate(`sqlite:${join(dir, 'template.sqlite3')}`);
      renameSync(join(dir, 'template.sqlite3'), file);
      rmSync(dir, { recursive: true, force: true });
    }
    return file;
  })());
}

async function createMysqlDatabase(server: URL, name: string, schema: TestSchema): Promise<TestDatabase> {
  const serverUri = `${server.protocol}//${server.username}:${server.password}@${server.host}/`;
  const admin = async (statement: string) => {
    const connection = await createConnection({ uri: serverUri, multipleStatements: true });
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  const create = `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`;
  await admin(schema === 'migrated' ? `${create}; USE \`${name}\`; ${await mysqlTemplateCopy(server, serverUri)}` : create);
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

let mysqlCopy: Promise<string> | undefined;
/**
 * The statements that rebuild the MySQL template's tables and rows in the current database (MySQL
 * has no template databases): its tables' own CREATE TABLE, foreign keys included, then its rows.
 * The template is migrated once, under a named lock, by whichever test process needs it first.
 */
function mysqlTemplateCopy(server: URL, serverUri: string): Promise<string> {
  return (mysqlCopy ??= (async () => {
    const connection = await createConnection({ uri: serverUri });
    try {
      await connection.query("SELECT GET_LOCK('pwpush_test_template', 300)");
      const [[ready]] = (await connection.query(
        'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = ?',
        [TEMPLATE_NAME, 'migrations'],
      )) as unknown as [{ n: number }[]];
      const applied = Number(ready.n) > 0 ? ((await connection.query(`SELECT COUNT(*) AS n FROM \`${TEMPLATE_NAME}\`.migrations`)) as unknown as [{ n: number }[]])[0][0].n : 0;
      if (Number(applied) !== MIGRATIONS.length) {
        await connection.query(`DROP DATABASE IF EXISTS \`${TEMPLATE_NAME}\``);
        await connection.query(`CREATE DATABASE \`${TEMPLATE_NAME}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
        const url = new URL(server);
        url.pathname = `/${TEMPLATE_NAME}`;
        await migrate(url.toString());
      }
      await connection.query("SELECT RELEASE_LOCK('pwpush_test_template')");
      const [tables] = (await connection.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name', [TEMPLATE_NAME])) as unknown as [{ name: string }[]];
      const statements = ['SET FOREIGN_KEY_CHECKS = 0'];
      for (const { name } of tables) {
        const [[created]] = (await connection.query(`SHOW CREATE TABLE \`${TEMPLATE_NAME}\`.\`${name}\``)) as unknown as [Record<string, string>[]];
        statements.push(created['Create Table']);
        const [[{ n }]] = (await connection.query(`SELECT COUNT(*) AS n FROM \`${TEMPLATE_NAME}\`.\`${name}\``)) as unknown as [{ n: number }[]];
        if (Number(n) > 0) statements.push(`INSERT INTO \`${name}\` SELECT * FROM \`${TEMPLATE_NAME}\`.\`${name}\``);
      }
      statements.push('SET FOREIGN_KEY_CHECKS = 1');
      return statements.join(';\n');
    } finally {
      await connection.end();
    }
  })());
}

/**
 * The PostgreSQL template, migrated once (under an advisory lock) by whichever test process needs
 * it first, and marked a template only when whole: a database that is not one is rebuilt.
 */
let postgresTemplate: Promise<void> | undefined;
function ensurePostgresTemplate(server: URL, on: <T>(database: string, work: (client: Client) => Promise<T>) => Promise<T>): Promise<void> {
  return (postgresTemplate ??= on('postgres', async (client) => {
    await client.query('SELECT pg_advisory_lock(727274)');
    try {
      const { rows } = await client.query<{ datistemplate: boolean }>('SELECT datistemplate FROM pg_database WHERE datname = $1', [TEMPLATE_NAME]);
      if (rows[0]?.datistemplate) return;
      await client.query(`DROP DATABASE IF EXISTS "${TEMPLATE_NAME}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${TEMPLATE_NAME}"`);
      const url = new URL(server);
      url.pathname = `/${TEMPLATE_NAME}`;
      await migrate(url.toString());
      await client.query(`ALTER DATABASE "${TEMPLATE_NAME}" IS_TEMPLATE true`);
    } finally {
      await client.query('SELECT pg_advisory_unlock(727274)');
    }
  }));
}

async function createPostgresDatabase(server: URL, name: string, schema: TestSchema): Promise<TestDatabase> {
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
  if (schema === 'migrated') await ensurePostgresTemplate(server, on);
  await on('postgres', (client) => client.query(`CREATE DATABASE "${name}"${schema === 'migrated' ? ` TEMPLATE "${TEMPLATE_NAME}"` : ''}`));
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
