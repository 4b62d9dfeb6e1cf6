import { QueryRunner, TableColumnOptions } from 'typeorm';
import { Engine, engineOf } from '../engine';

/** Ciphertexts of up to a few MB (a 1 MiB-character payload is up to 4 MB of UTF-8). */
const LARGE_BLOB: Record<Engine, string> = { sqlite: 'blob', mysql: 'longblob', postgres: 'bytea' };

/**
 * How an entity's column type reads on each engine where TypeORM's own reading differs from what
 * the migrations create (createDataSource applies it), so entities and schema agree everywhere:
 * - `blob`: TypeORM has no binary type that all three engines accept; entities say `blob`, which
 *   means LARGE_BLOB;
 * - `int` on SQLite: the migrations declare INT, which SQLite treats exactly as INTEGER (the same
 *   affinity) but TypeORM would read as a different type.
 */
export const ENTITY_COLUMN_TYPES: Record<Engine, Record<string, string>> = {
  sqlite: { int: 'int' },
  mysql: { blob: LARGE_BLOB.mysql },
  postgres: { blob: LARGE_BLOB.postgres },
};

/**
 * The few column types that differ between SQLite, MySQL and PostgreSQL, so that one set of
 * migrations serves every engine.
 */
export function columnTypes(queryRunner: QueryRunner) {
  const engine = engineOf(queryRunner.connection);
  return {
    id: (): TableColumnOptions => ({
      name: 'id',
      // SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL makes an int SERIAL.
      type: engine === 'sqlite' ? 'integer' : 'int',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    }),
    largeBlob: LARGE_BLOB[engine],
    /**
     * The default of a boolean column that starts false. SQLite and MySQL store booleans as
     * integers (0); PostgreSQL has a real boolean, which takes no integer default.
     */
    false: engine === 'postgres' ? false : 0,
    /** A boolean as the entities read it: MySQL's TINYINT (its BOOLEAN is TINYINT(1), a display width TypeORM reports as a difference). */
    boolean: engine === 'mysql' ? 'tinyint' : 'boolean',
    /** A foreign key's ON UPDATE as the entities read it: MySQL states it, the others leave it implied. */
    onUpdate: engine === 'mysql' ? 'NO ACTION' : undefined,
  };
}
