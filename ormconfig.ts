/**
 * The TypeORM CLI's data source (`npm run typeorm -- migration:show`, `migration:generate`, ...),
 * built from the same options function and settings as the app.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { AuditEntryEntity } from '@app/audit';
import { ApiTokenEntity, UserEntity } from '@app/auth';
import { loadSettings, readProcessEnv } from '@app/config';
import { dataSourceOptions } from '@app/database';
import { PushEntity } from '@app/pushes';

export default new DataSource({
  ...dataSourceOptions(loadSettings(readProcessEnv())),
  entities: [PushEntity, AuditEntryEntity, UserEntity, ApiTokenEntity],
});
