import { MigrationInterface, QueryRunner, Table, TableColumn, TableForeignKey } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * Two-factor authentication (TOTP):
 * - users: the TOTP secret, encrypted with the master key (set while a setup is under way, kept
 *   while two-factor is on); when two-factor was turned on (null: off); the time step of the last
 *   code accepted, so that no code is accepted twice;
 * - recovery_codes: the single-use recovery codes, each stored only as an HMAC under a key derived
 *   from the master key; a code used is deleted;
 * - two_factor_challenges: a sign-in waiting for its code after the right password, named by the
 *   SHA-256 of a random token in the browser's cookie, with its wrong codes counted and an expiry.
 */
export class TwoFactor1764936000000 implements MigrationInterface {
  name = 'TwoFactor1764936000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.addColumns('users', [
      new TableColumn({ name: 'otp_secret', type: t.largeBlob, isNullable: true }),
      new TableColumn({ name: 'otp_enabled_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'otp_last_step', type: 'bigint', isNullable: true }),
    ]);
    await queryRunner.createTable(
      new Table({
        name: 'recovery_codes',
        columns: [
          t.id(),
          { name: 'user_id', type: 'int' },
          // HMAC-SHA256 of the code, hex.
          { name: 'code_hash', type: 'varchar', length: '64' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [{ name: 'ix_recovery_codes_user_id_code_hash', columnNames: ['user_id', 'code_hash'] }],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_recovery_codes_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE', onUpdate: t.onUpdate }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'two_factor_challenges',
        columns: [
          t.id(),
          { name: 'user_id', type: 'int' },
          // SHA-256 of the cookie's token, hex.
          { name: 'token_hash', type: 'varchar', length: '64' },
          { name: 'attempts', type: 'int', default: 0 },
          // "Remember me" as asked with the password, for the session the code starts.
          { name: 'remember', type: t.boolean, default: t.false },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ux_two_factor_challenges_token_hash', columnNames: ['token_hash'], isUnique: true },
          { name: 'ix_two_factor_challenges_user_id', columnNames: ['user_id'] },
        ],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_two_factor_challenges_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE', onUpdate: t.onUpdate }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('two_factor_challenges');
    await queryRunner.dropTable('recovery_codes');
    await queryRunner.dropColumns('users', ['otp_secret', 'otp_enabled_at', 'otp_last_step']);
  }
}
