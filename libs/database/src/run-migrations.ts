import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

const LOCK_NAME = 'pwpush_migrations';
const LOCK_TIMEOUT_SECONDS = 120;

/**
 * Applies pending migrations. On MySQL a named lock serialises replicas that start together:
 * the first applies the migrations, the others wait and then find nothing left to do.
 */
export async function runMigrations(dataSource: DataSource, logger = new Logger('Migrations')): Promise<void> {
  if (dataSource.options.type !== 'mysql') {
    await applyPending(dataSource, logger);
    return;
  }
  const lockHolder = dataSource.createQueryRunner();
  try {
    const [row] = (await lockHolder.query('SELECT GET_LOCK(?, ?) AS acquired', [LOCK_NAME, LOCK_TIMEOUT_SECONDS])) as {
      acquired: number | null;
    }[];
    if (Number(row?.acquired) !== 1) {
      throw new Error(`Timed out after ${LOCK_TIMEOUT_SECONDS}s waiting for the migration lock held by another process.`);
    }
    try {
      await applyPending(dataSource, logger);
    } finally {
      await lockHolder.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]);
    }
  } finally {
    await lockHolder.release();
  }
}

async function applyPending(dataSource: DataSource, logger: Logger): Promise<void> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  if (applied.length > 0) logger.log(`Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`);
}

/** With start-up migrations off, an outdated schema is worth a loud line in the log. */
export async function warnAboutPendingMigrations(dataSource: DataSource, logger = new Logger('Migrations')): Promise<void> {
  if (await dataSource.showMigrations()) {
    logger.warn('Database migrations are pending and DB_MIGRATE_ON_START=false: run `cli migrations:run` before serving traffic.');
  }
}
