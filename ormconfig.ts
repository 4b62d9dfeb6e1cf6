/**
 * The TypeORM CLI's data source (`npm run typeorm -- migration:show`, `migration:generate`, ...),
 * built from the same options function and settings as the app, with every entity.
 */
import 'reflect-metadata';
import { AuditEntryEntity } from '@app/audit';
import { ApiTokenEntity, SessionEntity, UserEntity } from '@app/auth';
import { loadSettings, readProcessEnv } from '@app/config';
import { createDataSource, dataSourceOptions } from '@app/database';
import { FileAttachmentEntity } from '@app/files';
import { PushEntity } from '@app/pushes';

export default dataSourceOptions(loadSettings(readProcessEnv())).then((options) =>
  createDataSource({ ...options, entities: [PushEntity, AuditEntryEntity, UserEntity, ApiTokenEntity, SessionEntity, FileAttachmentEntity] }),
);
