import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SETTINGS, Settings } from '@app/config';
import { dataSourceOptions, openDataSource } from './data-source-options';
import { NamedLocks } from './named-lock';
import { Sql } from './sql';
import { enforceQueryTimeout } from './query-timeout';
import { runMigrations, warnAboutPendingMigrations } from './run-migrations';

@Module({})
export class DatabaseModule {
  /** The TypeORM connection for the app; entities register themselves with forFeature. */
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [SETTINGS],
          useFactory: async (settings: Settings) => ({ ...(await dataSourceOptions(settings)), autoLoadEntities: true, retryAttempts: 0 }),
          dataSourceFactory: (options) => openDataSource(options!),
        }),
      ],
      providers: [
        NamedLocks,
        Sql,
        {
          provide: 'DATABASE_MIGRATIONS',
          inject: [SETTINGS, DataSource],
          useFactory: async (settings: Settings, dataSource: DataSource) => {
            if (settings.migrateOnStart) {
              await runMigrations(dataSource);
            } else {
              await warnAboutPendingMigrations(dataSource);
            }
            enforceQueryTimeout(dataSource, settings.databaseTimeouts.queryMs);
            return true;
          },
        },
      ],
      exports: [NamedLocks, Sql],
    };
  }
}
