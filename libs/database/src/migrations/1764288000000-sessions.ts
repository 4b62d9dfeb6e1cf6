import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * Sessions of the pages for people (sign-in, /users/token): a row per signed-in browser, so a
 * session works on every replica and signing out ends it everywhere at once.
 */
export class Sessions1764288000000 implements MigrationInterface {
  name = 'Sessions1764288000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'sessions',
        columns: [
          t.id(),
          // SHA-256 of the cookie's token, hex.
          { name: 'token_hash', type: 'varchar', length: '64' },
          { name: 'user_id', type: 'int' },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ux_sessions_token_hash', columnNames: ['token_hash'], isUnique: true },
          // A user's sessions, to drop the lapsed ones at the next sign-in.
          { name: 'ix_sessions_user_id_expires_at', columnNames: ['user_id', 'expires_at'] },
        ],
        foreignKeys: [
          { name: 'fk_sessions_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('sessions');
  }
}
