/**
 * Persistence infrastructure: TypeORM options for SQLite and MySQL, the migrations
 * (the only way the schema changes) and the locked migration runner.
 */
export * from './data-source-options';
export * from './database.module';
export * from './epoch-millis';
export * from './named-lock';
export * from './sql';
export * from './run-migrations';
