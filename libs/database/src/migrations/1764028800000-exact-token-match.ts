import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tokens must match byte for byte. MySQL's default utf8mb4_unicode_ci collation ignores case
 * (and trailing spaces), which let a case-swapped token find a push and cut its effective
 * randomness. SQLite and PostgreSQL (whose `=` on a deterministic collation is byte equality)
 * compare them exactly already.
 */
export class ExactTokenMatch1764028800000 implements MigrationInterface {
  name = 'ExactTokenMatch1764028800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'mysql') return;
    await queryRunner.query('ALTER TABLE `pushes` MODIFY `url_token` VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL');
    await queryRunner.query('ALTER TABLE `api_tokens` MODIFY `token_hash` VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'mysql') return;
    await queryRunner.query('ALTER TABLE `api_tokens` MODIFY `token_hash` VARCHAR(64) NOT NULL');
    await queryRunner.query('ALTER TABLE `pushes` MODIFY `url_token` VARCHAR(64) NOT NULL');
  }
}
