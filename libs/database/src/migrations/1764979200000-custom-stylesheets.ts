import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { columnTypes } from './column-types';

/**
 * The administration's custom CSS: each save a new row (who and when beside it), the newest one
 * served as /custom.css on every page, so the stylesheet's history stays and the CSP stays strict.
 */
export class CustomStylesheets1764979200000 implements MigrationInterface {
  name = 'CustomStylesheets1764979200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = columnTypes(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'custom_stylesheets',
        columns: [t.id(), { name: 'css', type: 'text' }, { name: 'saved_by', type: 'varchar', length: '255' }, { name: 'created_at', type: 'bigint' }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('custom_stylesheets');
  }
}
