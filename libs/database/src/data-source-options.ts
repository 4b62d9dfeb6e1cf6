import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { Settings } from '@app/config';
import { engineOf } from './engine';
import { MIGRATIONS } from './migrations';
import { ENTITY_COLUMN_TYPES } from './migrations/column-types';

/**
 * The one place that turns settings into TypeORM options: used by the Nest app, the CLI
 * and ormconfig.ts. The schema only ever changes through migrations.
 */
export function dataSourceOptions(settings: Pick<Settings, 'database' | 'databaseTimeouts'>): DataSourceOptions {
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
        url: database.url,
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
        // Host, credentials, database and TLS (`?sslmode=...`) all come from the URL.
        url: database.url,
        applicationName: 'pwpush',
        poolSize: 10,
        // Bounds opening a connection and waiting for a free one in the pool.
        connectTimeoutMS: settings.databaseTimeouts.connectMs,
      };
  }
}

/**
 * A data source whose driver reads the entities' column types as the migrations create them on
 * its engine (ENTITY_COLUMN_TYPES): the entities then describe the migrated schema exactly on
 * every engine, which test/schema.e2e-spec.ts checks.
 */
export function createDataSource(options: DataSourceOptions): DataSource {
  const dataSource = new DataSource(options);
  const { driver } = dataSource;
  const types = ENTITY_COLUMN_TYPES[engineOf(dataSource)];
  const normalizeType = driver.normalizeType.bind(driver);
  driver.normalizeType = (column) => (typeof column.type === 'string' && types[column.type]) || normalizeType(column);
  return dataSource;
}
