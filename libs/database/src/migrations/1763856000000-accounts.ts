import { MigrationInterface, QueryRunner, Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import { columnTypes } from './column-types';

/** Users, their API tokens, push ownership and the per-push audit entry count. */
export class Accounts1763856000000 implements MigrationInterface {
  name = 'Accounts1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [
          t.id(),
          { name: 'email', type: 'varchar', length: '255' },
          { name: 'password_hash', type: 'varchar', length: '255', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [{ name: 'ux_users_email', columnNames: ['email'], isUnique: true }],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'api_tokens',
        columns: [
          t.id(),
          { name: 'user_id', type: 'int' },
          { name: 'name', type: 'varchar', length: '100' },
          // SHA-256 of the token, hex: tokens carry 256 random bits, so a fast hash is enough.
          { name: 'token_hash', type: 'varchar', length: '64' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ux_api_tokens_token_hash', columnNames: ['token_hash'], isUnique: true },
          { name: 'ux_api_tokens_user_id_name', columnNames: ['user_id', 'name'], isUnique: true },
        ],
        foreignKeys: [
          { name: 'fk_api_tokens_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
      }),
    );

    await queryRunner.addColumns('pushes', [
      new TableColumn({ name: 'user_id', type: 'int', isNullable: true }),
      new TableColumn({ name: 'audit_entry_count', type: 'int', default: 0 }),
    ]);
    // The owner's active and expired lists, newest first.
    await queryRunner.createIndex('pushes', new TableIndex({ name: 'ix_pushes_user_id_expired_id', columnNames: ['user_id', 'expired', 'id'] }));
    await queryRunner.createForeignKey(
      'pushes',
      new TableForeignKey({ name: 'fk_pushes_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL' }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropForeignKey('pushes', 'fk_pushes_user');
    await queryRunner.dropIndex('pushes', 'ix_pushes_user_id_expired_id');
    await queryRunner.dropColumns('pushes', ['user_id', 'audit_entry_count']);
    await queryRunner.dropTable('api_tokens');
    await queryRunner.dropTable('users');
  }
}
