import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { Settings } from '@app/config';
import { engineOf } from './engine';
import { MIGRATIONS } from './migrations';
import { ENTITY_COLUMN_TYPES } from './migrations/column-types';
import { explainMysqlFailure, mysqlSsl } from './mysql-tls';

/**
 * The one place that turns settings into TypeORM options: used by the Nest app, the CLI
 * and ormconfig.ts. The schema only ever changes through migrations. Asynchronous because MySQL's
 * PREFERRED TLS asks the server first (see mysqlSsl).
 */
export async function dataSourceOptions(settings: Pick<Settings, 'database' | 'databaseTimeouts'>): Promise<DataSourceOptions> {
  const common = { synchronize: false, migrationsRun: false, migrations: MIGRATIONS, logging: false } as const;
  const { database } = settings;
  switch (database.type) {
    case 'sqlite':
      if (database.path !== ':memory:') mkdirSync(dirname(database.path), { recursive: true });
      return {
        ...common,
        type: 'better-sqlite3',
        database: database.path,
        enableWAL: true,
        prepareDatabase: (db: { pragma(source: string): unknown }) => {
          db.pragma('busy_timeout = 5000');
          db.pragma('foreign_keys = ON');
        },
      };
    case 'mysql':
      return {
        ...common,
        type: 'mysql',
        // From the parsed URL, not the URL: TypeORM's own parser takes an IPv6 host apart at its colons.
        host: database.host,
        port: database.port,
        username: database.user,
        password: database.password,
        database: database.database,
        ssl: await mysqlSsl(database, settings.databaseTimeouts.connectMs),
        charset: 'utf8mb4_unicode_ci',
        timezone: 'Z',
        supportBigNumbers: true,
        bigNumberStrings: false,
        poolSize: 10,
        connectTimeout: settings.databaseTimeouts.connectMs,
      };
    case 'postgres':
      return {
        ...common,
        type: 'postgres',
        // Host, credentials, database and TLS (`?sslmode=...`, checked by the settings) all come from the URL.
        url: database.url,
        applicationName: 'pwpush',
        poolSize: 10,
        // Bounds opening a connection and waiting for a free one in the pool.
        connectTimeoutMS: settings.databaseTimeouts.connectMs,
      };
  }
}

/**
 * Creates and connects the data source; a MySQL connection refused for a TLS reason becomes a
 * SettingsError that says what to change in DATABASE_URL.
 */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  try {
    return await createDataSource(options).initialize();
  } catch (error) {
    throw options.type === 'mysql' ? await explainMysqlFailure(error, options) : error;
  }
}

/**
 * A data source whose driver reads the entities' column types as the migrations create them on
 * its engine (ENTITY_COLUMN_TYPES): the entities then describe the migrated schema exactly on
 * every engine, which test/database/schema.e2e-spec.ts checks.
 */
export function createDataSource(options: DataSourceOptions): DataSource {
  const dataSource = new DataSource(options);
  const { driver } = dataSource;
  const types = ENTITY_COLUMN_TYPES[engineOf(dataSource)];
  const normalizeType = driver.normalizeType.bind(driver);
  driver.normalizeType = (column) => (typeof column.type === 'string' && types[column.type]) || normalizeType(column);
  return dataSource;
}
