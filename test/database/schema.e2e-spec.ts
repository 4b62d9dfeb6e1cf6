import { DataSource } from 'typeorm';
import { createDataSource, engineOf } from '@app/database';
import { startTestApp, TestApp } from '../support/test-app';
import { createTestDatabase, type TestSchema } from '../support/test-database';

/**
 * The migrations and the entities describe the same schema on every engine: a database the
 * migrations built gives an empty diff in TypeORM's schema builder (what `migration:generate`
 * would write), columns, indexes and foreign keys alike. Both for a database the app's start
 * migrated from empty, and for the copy of a migrated template that most test files start on.
 */
describe.each<TestSchema>(['empty', 'migrated'])('schema (a database that starts %s)', (schema) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({}, await createTestDatabase(schema));
  });
  afterAll(() => app.close({ drop: true }));

  /**
   * The app's data source, or on MariaDB the same options and entities as TypeORM's `mariadb`
   * type: only that reads MariaDB's catalogue right (it reports a nullable column's default as
   * the text NULL, which the `mysql` reading takes for a string default).
   */
  async function differ(): Promise<{ dataSource: DataSource; close(): Promise<void> }> {
    const { dataSource } = app;
    const [{ version }] = await app.query<{ version: string }>(engineOf(dataSource) === 'mysql' ? 'SELECT VERSION() AS version' : "SELECT '' AS version");
    if (!/mariadb/i.test(version)) return { dataSource, close: async () => undefined };
    const mariadb = await createDataSource({ ...dataSource.options, type: 'mariadb', entities: dataSource.entityMetadatas.map((m) => m.target) } as never).initialize();
    return { dataSource: mariadb, close: () => mariadb.destroy() };
  }

  it('has no pending migration, and the migrated database matches the entities', async () => {
    expect(await app.dataSource.showMigrations()).toBe(false);
    const { dataSource, close } = await differ();
    try {
      const diff = await dataSource.driver.createSchemaBuilder().log();
      expect(diff.upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await close();
    }
  });
});
