/**
 * Persistence infrastructure: TypeORM options for SQLite, MySQL (with MySQL's TLS modes) and
 * PostgreSQL, the migrations (the only way the schema changes), the locked migration runner, and
 * what differs between the engines (column types, named locks, statement texts, timeouts).
 */
export * from './data-source-options';
export * from './database.module';
export * from './engine';
export * from './epoch-millis';
export * from './named-lock';
export * from './sql';
export * from './write-batch';
export * from './run-migrations';
export { MIGRATIONS } from './migrations';
