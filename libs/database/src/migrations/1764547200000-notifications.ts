import { MigrationInterface, QueryRunner, Table, TableColumn, TableForeignKey } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * Notifications: the outbox of events (written in the transaction of the change it tells of), the
 * owners' webhook endpoints, and the deliveries the worker makes from the events, with their
 * retries. Also what the requests need to decide cheaply: whether a user has any endpoint
 * (`users.has_webhooks`, read with the user), how many recipients a push has mailed its link to
 * (`pushes.notify_emails_count`, capped in the statement that counts them), and the state of a
 * link mail as its audit entry shows it (`audit_entries.details`).
 */
export class Notifications1764547200000 implements MigrationInterface {
  name = 'Notifications1764547200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    const foreignKey = (name: string, column: string, table: string) =>
      new TableForeignKey({ name, columnNames: [column], referencedTableName: table, referencedColumnNames: ['id'], onDelete: 'CASCADE', onUpdate: t.onUpdate });
    await queryRunner.addColumn('users', new TableColumn({ name: 'has_webhooks', type: t.boolean, default: t.false }));
    await queryRunner.addColumn('pushes', new TableColumn({ name: 'notify_emails_count', type: 'int', default: 0 }));
    await queryRunner.addColumn('audit_entries', new TableColumn({ name: 'details', type: 'text', isNullable: true }));
    await queryRunner.createTable(
      new Table({
        name: 'outbox',
        columns: [
          t.id(),
          { name: 'type', type: 'varchar', length: '32' },
          { name: 'user_id', type: 'int' },
          // The event as JSON: what its deliveries send (never a secret).
          { name: 'payload', type: 'text' },
          // Addresses the owner named that this event mails (their daily limit counts these).
          { name: 'email_count', type: 'int', default: 0 },
          { name: 'created_at', type: 'bigint' },
          // Set once the worker has made the event's deliveries.
          { name: 'dispatched_at', type: 'bigint', isNullable: true },
        ],
        indices: [
          { name: 'ix_outbox_dispatched_at_id', columnNames: ['dispatched_at', 'id'] },
          { name: 'ix_outbox_user_id_created_at', columnNames: ['user_id', 'created_at'] },
        ],
        foreignKeys: [foreignKey('fk_outbox_user', 'user_id', 'users')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          t.id(),
          // What the API calls the endpoint by: random, so ids say nothing about other users'.
          { name: 'public_id', type: 'varchar', length: '32' },
          { name: 'user_id', type: 'int' },
          { name: 'url', type: 'varchar', length: '2048' },
          // The subscribed event types, one bit each.
          { name: 'events', type: 'int' },
          { name: 'description', type: 'varchar', length: '255', isNullable: true },
          // The signing secret, sealed with the master key ring (it must be read back to sign).
          { name: 'secret', type: t.largeBlob },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ux_webhooks_public_id', columnNames: ['public_id'], isUnique: true },
          { name: 'ix_webhooks_user_id', columnNames: ['user_id'] },
        ],
        foreignKeys: [foreignKey('fk_webhooks_user', 'user_id', 'users')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'deliveries',
        columns: [
          t.id(),
          // The endpoint; null for a link mail to the recipients a push's owner named.
          { name: 'webhook_id', type: 'int', isNullable: true },
          { name: 'outbox_id', type: 'int' },
          { name: 'event', type: 'varchar', length: '32' },
          // pending, delivered or dead.
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'int', default: 0 },
          // When the next attempt is due; while an attempt runs, when its claim lapses.
          { name: 'next_attempt_at', type: 'bigint' },
          { name: 'last_status_code', type: 'int', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '255', isNullable: true },
          // A link mail's recipients still to send to, as JSON.
          { name: 'remaining', type: 'text', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ix_deliveries_status_next_attempt_at', columnNames: ['status', 'next_attempt_at'] },
          { name: 'ix_deliveries_webhook_id_id', columnNames: ['webhook_id', 'id'] },
          { name: 'ix_deliveries_outbox_id', columnNames: ['outbox_id'] },
        ],
        foreignKeys: [foreignKey('fk_deliveries_webhook', 'webhook_id', 'webhooks'), foreignKey('fk_deliveries_outbox', 'outbox_id', 'outbox')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('deliveries');
    await queryRunner.dropTable('webhooks');
    await queryRunner.dropTable('outbox');
    await queryRunner.dropColumn('audit_entries', 'details');
    await queryRunner.dropColumn('pushes', 'notify_emails_count');
    await queryRunner.dropColumn('users', 'has_webhooks');
  }
}
