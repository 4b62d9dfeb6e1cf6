import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableForeignKey, TableIndex } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * Secret requests (issue 33): a signed-in person asks someone to send them a secret.
 * - requests: the message to the responder, the owner's name and note, the answer (all encrypted
 *   but the name), the passphrase's hash, the options, the state (open, ready, closed) and when
 *   it closes. Indexed for the sweep (state, close_after_at), the owner's lists (user_id, state,
 *   id) and the purge (state, closed_at).
 * - request_audit_entries: a request's audit log, as audit_entries is a push's.
 * - file_attachments: a file may belong to a request instead of a push (`request_id`), the
 *   requester's own (`from_responder` false) or the responder's. Set to null when its request is
 *   deleted: the row then waits for its `destroy_at` (never later than the request's close), when
 *   the sweep destroys its blob, so no blob is ever left unnamed.
 */
export class SecretRequests1765065600000 implements MigrationInterface {
  name = 'SecretRequests1765065600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    const timestamp = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable });
    const flag = (name: string): TableColumnOptions => ({ name, type: t.boolean, default: t.false });
    await queryRunner.createTable(
      new Table({
        name: 'requests',
        columns: [
          t.id(),
          { name: 'url_token', type: 'varchar', length: '64' },
          { name: 'user_id', type: 'int' },
          { name: 'message', type: t.largeBlob },
          { name: 'name', type: 'varchar', length: '255', isNullable: true },
          { name: 'note', type: t.largeBlob, isNullable: true },
          { name: 'response', type: t.largeBlob, isNullable: true },
          { name: 'passphrase_hash', type: 'varchar', length: '255', isNullable: true },
          flag('passphrase_protected'),
          flag('retrieval_step'),
          flag('include_requestor'),
          flag('response_file_attachments'),
          { name: 'state', type: 'varchar', length: '8' },
          { name: 'close_after_duration', type: 'int' },
          timestamp('close_after_at'),
          timestamp('responded_at', true),
          timestamp('closed_at', true),
          { name: 'audit_entry_count', type: 'int', default: 0 },
          timestamp('created_at'),
          timestamp('updated_at'),
        ],
        indices: [
          { name: 'ux_requests_url_token', columnNames: ['url_token'], isUnique: true },
          { name: 'ix_requests_state_close_after_at', columnNames: ['state', 'close_after_at'] },
          { name: 'ix_requests_user_id_state_id', columnNames: ['user_id', 'state', 'id'] },
          { name: 'ix_requests_state_closed_at', columnNames: ['state', 'closed_at'] },
        ],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_requests_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE', onUpdate: t.onUpdate }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'request_audit_entries',
        columns: [
          t.id(),
          { name: 'request_id', type: 'int' },
          { name: 'kind', type: 'varchar', length: '24' },
          { name: 'ip', type: 'varchar', length: '45' },
          { name: 'user_agent', type: 'varchar', length: '255' },
          { name: 'referrer', type: 'varchar', length: '255' },
          timestamp('created_at'),
          timestamp('updated_at'),
        ],
        indices: [{ name: 'ix_request_audit_entries_request_id_id', columnNames: ['request_id', 'id'] }],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_request_audit_entries_request',
            columnNames: ['request_id'],
            referencedTableName: 'requests',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
            onUpdate: t.onUpdate,
          }),
        ],
      }),
    );
    await queryRunner.addColumns('file_attachments', [
      new TableColumn({ name: 'request_id', type: 'int', isNullable: true }),
      new TableColumn({ name: 'from_responder', type: t.boolean, default: t.false }),
    ]);
    await queryRunner.createIndex('file_attachments', new TableIndex({ name: 'ix_file_attachments_request_id', columnNames: ['request_id'] }));
    await queryRunner.createForeignKey(
      'file_attachments',
      new TableForeignKey({ name: 'fk_file_attachments_request', columnNames: ['request_id'], referencedTableName: 'requests', referencedColumnNames: ['id'], onDelete: 'SET NULL', onUpdate: t.onUpdate }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropForeignKey('file_attachments', 'fk_file_attachments_request');
    await queryRunner.dropIndex('file_attachments', 'ix_file_attachments_request_id');
    await queryRunner.dropColumns('file_attachments', ['request_id', 'from_responder']);
    await queryRunner.dropTable('request_audit_entries');
    await queryRunner.dropTable('requests');
  }
}
