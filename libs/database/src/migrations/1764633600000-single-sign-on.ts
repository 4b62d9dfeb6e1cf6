import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { engineOf } from '../engine';
import { columnTypes } from './column-types';

/**
 * Single sign-on and token lifetimes:
 * - users: the OpenID Provider's (issuer, sub) of a user, unique together (NULLs, the users who
 *   never signed in that way, do not collide on any engine); when an administrator disabled them;
 * - api_tokens: an optional expiry;
 * - sessions: the encrypted ID token of a single sign-on, the hint for the provider's logout.
 * On MySQL the identity columns are ASCII compared byte for byte: a `sub` is case-sensitive
 * (OpenID Connect Core 1.0, 2: ASCII, at most 255 characters), which utf8mb4_unicode_ci is not.
 */
export class SingleSignOn1764633600000 implements MigrationInterface {
  name = 'SingleSignOn1764633600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.addColumns('users', [
      new TableColumn({ name: 'oidc_issuer', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({ name: 'oidc_subject', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({ name: 'disabled_at', type: 'bigint', isNullable: true }),
    ]);
    if (engineOf(queryRunner.connection) === 'mysql') {
      await queryRunner.query(
        'ALTER TABLE `users` MODIFY `oidc_issuer` VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NULL, MODIFY `oidc_subject` VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NULL',
      );
    }
    await queryRunner.createIndex('users', new TableIndex({ name: 'ux_users_oidc_issuer_oidc_subject', columnNames: ['oidc_issuer', 'oidc_subject'], isUnique: true }));
    await queryRunner.addColumn('api_tokens', new TableColumn({ name: 'expires_at', type: 'bigint', isNullable: true }));
    await queryRunner.addColumn('sessions', new TableColumn({ name: 'id_token', type: t.largeBlob, isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('sessions', 'id_token');
    await queryRunner.dropColumn('api_tokens', 'expires_at');
    await queryRunner.dropIndex('users', 'ux_users_oidc_issuer_oidc_subject');
    await queryRunner.dropColumns('users', ['oidc_issuer', 'oidc_subject', 'disabled_at']);
  }
}
