import { MigrationInterface, QueryRunner, Table, TableForeignKey } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * The daily limit of link mails as a counter per user, of one UTC day at a time: the statement
 * that records a link mail adds its recipients here under the condition that the sum stays within
 * the limit, so concurrent requests cannot pass it together (a sum over the outbox, read first,
 * could not hold that). One row per user who ever mailed a link, made before its first use.
 */
export class EmailQuotas1764763200000 implements MigrationInterface {
  name = 'EmailQuotas1764763200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'email_quotas',
        columns: [
          t.id(),
          { name: 'user_id', type: 'int' },
          // Days since the epoch (UTC) that `emails` counts; a row of an earlier day counts as 0.
          { name: 'utc_day', type: 'int', default: 0 },
          { name: 'emails', type: 'int', default: 0 },
        ],
        indices: [{ name: 'ux_email_quotas_user_id', columnNames: ['user_id'], isUnique: true }],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_email_quotas_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: t.onUpdate,
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('email_quotas');
  }
}
