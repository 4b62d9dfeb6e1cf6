import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * Webhook endpoints (issue 28): whether an endpoint's bodies carry the push's full url_token (an
 * owner's opt-in; the default is its first 8 characters), and its health: the failures in a row
 * (each failing pause counts once), until when its deliveries wait, and when and why it was
 * disabled after too many. Existing endpoints start healthy and without the full token: the
 * bodies they receive lose `url_token`, which is the point of the change. And the index the
 * worker finds each endpoint's first due deliveries by, one endpoint at a time, so that one
 * endpoint's long backlog is never read whole to serve the others.
 */
export class WebhookEndpointHealth1764720000000 implements MigrationInterface {
  name = 'WebhookEndpointHealth1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.addColumns('webhooks', [
      new TableColumn({ name: 'include_url_token', type: t.boolean, default: t.false }),
      new TableColumn({ name: 'consecutive_failures', type: 'int', default: 0 }),
      new TableColumn({ name: 'paused_until', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'disabled_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'disabled_reason', type: 'varchar', length: '255', isNullable: true }),
    ]);
    await queryRunner.createIndex('deliveries', new TableIndex({ name: 'ix_deliveries_status_webhook_id_next_attempt_at', columnNames: ['status', 'webhook_id', 'next_attempt_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('deliveries', 'ix_deliveries_status_webhook_id_next_attempt_at');
    await queryRunner.dropColumns('webhooks', ['include_url_token', 'consecutive_failures', 'paused_until', 'disabled_at', 'disabled_reason']);
  }
}
