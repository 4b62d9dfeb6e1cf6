import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NamedLocks } from './named-lock';

const LOCK_NAME = 'pwpush_migrations';
const LOCK_WAIT_SECONDS = 120;

/**
 * Applies pending migrations. On MySQL and PostgreSQL a named lock serialises replicas that start together:
 * the first applies the migrations, the others wait and then find nothing left to do.
 */
export async function runMigrations(dataSource: DataSource, logger = new Logger('Migrations')): Promise<void> {
  const outcome = await new NamedLocks(dataSource).withLock(LOCK_NAME, LOCK_WAIT_SECONDS, async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    if (applied.length > 0) logger.log(`Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`);
  });
  if (!outcome.acquired) {
    throw new Error(`Timed out after ${LOCK_WAIT_SECONDS}s waiting for the migration lock held by another process.`);
  }
}

/** With start-up migrations off, an outdated schema is worth a loud line in the log. */
export async function warnAboutPendingMigrations(dataSource: DataSource, logger = new Logger('Migrations')): Promise<void> {
  if (await dataSource.showMigrations()) {
    logger.warn('Database migrations are pending and DB_MIGRATE_ON_START=false: run `cli migrations:run` before serving traffic.');
  }
}
