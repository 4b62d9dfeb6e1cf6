import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * A list first expires the owner's pushes whose day window has elapsed (expired = FALSE AND
 * user_id = ? AND expires_at <= ?). Through (user_id, expired, id) that visits every active push
 * of the owner, 10,000 rows for a heavy user on each list; through (expired, expires_at) every
 * elapsed push the sweep has not reached yet, of all users. This index seeks straight to the few
 * that match.
 */
export class OwnerExpiryIndex1764460800000 implements MigrationInterface {
  name = 'OwnerExpiryIndex1764460800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'pushes',
      new TableIndex({ name: 'ix_pushes_user_id_expired_expires_at', columnNames: ['user_id', 'expired', 'expires_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('pushes', 'ix_pushes_user_id_expired_expires_at');
  }
}
