import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';
import { columnTypes } from './column-types';

export class CreatePushesAndAudit1763769600000 implements MigrationInterface {
  name = 'CreatePushesAndAudit1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    const timestamp = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable });

    await queryRunner.createTable(
      new Table({
        name: 'pushes',
        columns: [
          t.id(),
          { name: 'url_token', type: 'varchar', length: '64' },
          { name: 'kind', type: 'varchar', length: '8' },
          { name: 'name', type: 'varchar', length: '255', isNullable: true },
          { name: 'payload', type: t.largeBlob, isNullable: true },
          { name: 'note', type: t.largeBlob, isNullable: true },
          { name: 'passphrase_hash', type: 'varchar', length: '255', isNullable: true },
          { name: 'passphrase_protected', type: 'boolean', default: t.false },
          { name: 'expire_after_days', type: 'int' },
          { name: 'expire_after_views', type: 'int' },
          { name: 'view_count', type: 'int', default: 0 },
          { name: 'deletable_by_viewer', type: 'boolean', isNullable: true },
          { name: 'retrieval_step', type: 'boolean' },
          { name: 'expired', type: 'boolean', default: t.false },
          { name: 'deleted', type: 'boolean', default: t.false },
          timestamp('expired_on', true),
          timestamp('expires_at'),
          timestamp('created_at'),
          timestamp('updated_at'),
        ],
        indices: [
          { name: 'ux_pushes_url_token', columnNames: ['url_token'], isUnique: true },
          // The expiry sweep: active pushes whose window has elapsed.
          { name: 'ix_pushes_expired_expires_at', columnNames: ['expired', 'expires_at'] },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'audit_entries',
        columns: [
          t.id(),
          { name: 'push_id', type: 'int' },
          { name: 'kind', type: 'varchar', length: '24' },
          { name: 'ip', type: 'varchar', length: '45' },
          { name: 'user_agent', type: 'varchar', length: '255' },
          { name: 'referrer', type: 'varchar', length: '255' },
          timestamp('created_at'),
          timestamp('updated_at'),
        ],
        // A push's log, in insertion order, is read by (push_id, id).
        indices: [{ name: 'ix_audit_entries_push_id_id', columnNames: ['push_id', 'id'] }],
        foreignKeys: [
          { name: 'fk_audit_entries_push', columnNames: ['push_id'], referencedTableName: 'pushes', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('audit_entries');
    await queryRunner.dropTable('pushes');
  }
}
