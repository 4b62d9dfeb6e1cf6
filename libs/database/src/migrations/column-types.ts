import { QueryRunner, TableColumnOptions } from 'typeorm';

/**
 * The few column types that differ between SQLite and MySQL, so that one set of
 * migrations serves both engines.
 */
export function columnTypes(queryRunner: QueryRunner) {
  const mysql = queryRunner.connection.driver.options.type === 'mysql';
  return {
    id: (): TableColumnOptions => ({
      name: 'id',
      // SQLite only auto-increments an INTEGER PRIMARY KEY.
      type: mysql ? 'int' : 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    }),
    /** Ciphertexts of up to a few MB (a 1 MiB-character payload is up to 4 MB of UTF-8). */
    largeBlob: mysql ? 'longblob' : 'blob',
  };
}
