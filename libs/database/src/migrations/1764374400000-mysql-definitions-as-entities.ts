import { MigrationInterface, QueryRunner } from 'typeorm';
import { engineOf } from '../engine';

/** Every foreign key the earlier migrations created, as they defined it. */
const FOREIGN_KEYS = [
  { table: 'pushes', name: 'fk_pushes_user', column: 'user_id', references: 'users', onDelete: 'SET NULL' },
  { table: 'audit_entries', name: 'fk_audit_entries_push', column: 'push_id', references: 'pushes', onDelete: 'CASCADE' },
  { table: 'api_tokens', name: 'fk_api_tokens_user', column: 'user_id', references: 'users', onDelete: 'CASCADE' },
  { table: 'file_attachments', name: 'fk_file_attachments_push', column: 'push_id', references: 'pushes', onDelete: 'CASCADE' },
  { table: 'sessions', name: 'fk_sessions_user', column: 'user_id', references: 'users', onDelete: 'CASCADE' },
];

const BOOLEANS = [
  ['passphrase_protected', 'NOT NULL DEFAULT 0'],
  ['deletable_by_viewer', 'NULL'],
  ['retrieval_step', 'NOT NULL'],
  ['expired', 'NOT NULL DEFAULT 0'],
  ['deleted', 'NOT NULL DEFAULT 0'],
];

/**
 * On MySQL, the schema as TypeORM defines it from the entities, so that the two agree exactly
 * (test/database/schema.e2e-spec.ts) as they do on SQLite and PostgreSQL. Nothing changes in behaviour:
 * - booleans become TINYINT rather than BOOLEAN's TINYINT(1) (a display width only; instant on
 *   MariaDB);
 * - foreign keys say ON UPDATE NO ACTION rather than leaving it to the server (InnoDB's default
 *   is the same, which MariaDB reports as RESTRICT). Each is dropped and added back with
 *   foreign_key_checks off, so the rows, which satisfied it a moment before, are not scanned
 *   again and the table is not rebuilt.
 */
export class MysqlDefinitionsAsEntities1764374400000 implements MigrationInterface {
  name = 'MysqlDefinitionsAsEntities1764374400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (engineOf(queryRunner.connection) !== 'mysql') return;
    await queryRunner.query(`ALTER TABLE \`pushes\` ${BOOLEANS.map(([column, rest]) => `MODIFY \`${column}\` tinyint ${rest}`).join(', ')}`);
    await redefineForeignKeys(queryRunner, ' ON UPDATE NO ACTION');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (engineOf(queryRunner.connection) !== 'mysql') return;
    await redefineForeignKeys(queryRunner, '');
    await queryRunner.query(`ALTER TABLE \`pushes\` ${BOOLEANS.map(([column, rest]) => `MODIFY \`${column}\` boolean ${rest}`).join(', ')}`);
  }
}

async function redefineForeignKeys(queryRunner: QueryRunner, onUpdate: string): Promise<void> {
  await queryRunner.query('SET SESSION foreign_key_checks = 0');
  try {
    for (const fk of FOREIGN_KEYS) {
      await queryRunner.query(`ALTER TABLE \`${fk.table}\` DROP FOREIGN KEY \`${fk.name}\``);
      await queryRunner.query(
        `ALTER TABLE \`${fk.table}\` ADD CONSTRAINT \`${fk.name}\` FOREIGN KEY (\`${fk.column}\`) REFERENCES \`${fk.references}\` (\`id\`) ON DELETE ${fk.onDelete}${onUpdate}`,
      );
    }
  } finally {
    await queryRunner.query('SET SESSION foreign_key_checks = 1');
  }
}
