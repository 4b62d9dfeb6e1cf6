import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** Retention purges expired pushes by the time they expired. */
export class PurgeIndex1763942400000 implements MigrationInterface {
  name = 'PurgeIndex1763942400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('pushes', new TableIndex({ name: 'ix_pushes_expired_expired_on', columnNames: ['expired', 'expired_on'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('pushes', 'ix_pushes_expired_expired_on');
  }
}
