import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A secret request's token must match byte for byte, as a push's does (ExactTokenMatch): MySQL's
 * default case-insensitive collation let a case-swapped token find a request (its page, its
 * answer route, its owner's read), which cut the token's effective randomness. SQLite and
 * PostgreSQL compare exactly already.
 */
export class ExactRequestTokenMatch1765152000000 implements MigrationInterface {
  name = 'ExactRequestTokenMatch1765152000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'mysql') return;
    await queryRunner.query('ALTER TABLE `requests` MODIFY `url_token` VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'mysql') return;
    await queryRunner.query('ALTER TABLE `requests` MODIFY `url_token` VARCHAR(64) NOT NULL');
  }
}
