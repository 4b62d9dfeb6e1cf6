import { MigrationInterface, QueryRunner, Table, TableColumn, TableForeignKey } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * Accounts people run themselves (sign-up, confirmation, reset, lockout, first run) and their
 * security log:
 * - users: administrator flag; when the address was confirmed (accounts that existed before
 *   count as confirmed) and a new address waiting for confirmation; the lockout's counter and
 *   when it locked; the preferred language; the last sign-in's time and address;
 * - sessions: whether the person asked to be remembered (a week, no inactivity timeout);
 * - account_tokens: the single-use links mailed to a person (confirmation, reset, unlock), each
 *   stored as the SHA-256 of a random token, with its expiry;
 * - first_run_codes: the boot codes logged at start-up while no account exists, hashed;
 * - security_events: the person's security log (sign-ins, failures, changes), never a secret.
 *   Entries outlive the account (user_id set to null) with the email they were written under.
 */
export class PeopleAccounts1764892800000 implements MigrationInterface {
  name = 'PeopleAccounts1764892800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.addColumns('users', [
      new TableColumn({ name: 'admin', type: t.boolean, default: t.false }),
      new TableColumn({ name: 'confirmed_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'unconfirmed_email', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({ name: 'failed_attempts', type: 'int', default: 0 }),
      new TableColumn({ name: 'locked_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'preferred_language', type: 'varchar', length: '16', isNullable: true }),
      new TableColumn({ name: 'last_sign_in_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'last_sign_in_ip', type: 'varchar', length: '45', isNullable: true }),
    ]);
    await queryRunner.query('UPDATE users SET confirmed_at = created_at');
    await queryRunner.addColumn('sessions', new TableColumn({ name: 'remember', type: t.boolean, default: t.false }));
    await queryRunner.createTable(
      new Table({
        name: 'account_tokens',
        columns: [
          t.id(),
          { name: 'user_id', type: 'int' },
          // confirmation, reset or unlock.
          { name: 'purpose', type: 'varchar', length: '16' },
          // SHA-256 of the mailed token, hex.
          { name: 'token_hash', type: 'varchar', length: '64' },
          // For a confirmation: the address it confirms.
          { name: 'email', type: 'varchar', length: '255', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ux_account_tokens_token_hash', columnNames: ['token_hash'], isUnique: true },
          { name: 'ix_account_tokens_user_id_purpose', columnNames: ['user_id', 'purpose'] },
        ],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_account_tokens_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE', onUpdate: t.onUpdate }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'first_run_codes',
        columns: [t.id(), { name: 'code_hash', type: 'varchar', length: '64' }, { name: 'created_at', type: 'bigint' }],
        indices: [{ name: 'ux_first_run_codes_code_hash', columnNames: ['code_hash'], isUnique: true }],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'security_events',
        columns: [
          t.id(),
          { name: 'user_id', type: 'int', isNullable: true },
          // The person's address when it was written, so an entry still says whose it was after the account is gone.
          { name: 'email', type: 'varchar', length: '255' },
          { name: 'kind', type: 'varchar', length: '32' },
          { name: 'ip', type: 'varchar', length: '45', isNullable: true },
          { name: 'user_agent', type: 'varchar', length: '255', isNullable: true },
          // A small JSON object (the sign-in method, a new address); never a secret.
          { name: 'detail', type: 'varchar', length: '1000', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [{ name: 'ix_security_events_user_id_id', columnNames: ['user_id', 'id'] }],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_security_events_user', columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'SET NULL', onUpdate: t.onUpdate }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('security_events');
    await queryRunner.dropTable('first_run_codes');
    await queryRunner.dropTable('account_tokens');
    await queryRunner.dropColumn('sessions', 'remember');
    await queryRunner.dropColumns('users', [
      'admin',
      'confirmed_at',
      'unconfirmed_email',
      'failed_attempts',
      'locked_at',
      'preferred_language',
      'last_sign_in_at',
      'last_sign_in_ip',
    ]);
  }
}
