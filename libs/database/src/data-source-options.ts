import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { Settings } from '@app/config';
import { MIGRATIONS } from './migrations';

/**
 * The one place that turns settings into TypeORM options: used by the Nest app, the CLI
 * and ormconfig.ts. The schema only ever changes through migrations.
 */
export function dataSourceOptions(settings: Pick<Settings, 'database' | 'databaseTimeouts'>): DataSourceOptions {
  const common = { synchronize: false, migrationsRun: false, migrations: MIGRATIONS, logging: false } as const;
  const { database } = settings;
  if (database.type === 'sqlite') {
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
  }
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
}
