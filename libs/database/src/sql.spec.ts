import { DataSource } from 'typeorm';
import { advisoryLockKey } from './named-lock';
import { forPostgres, Sql } from './sql';

describe('forPostgres', () => {
  it('numbers the placeholders and leaves string literals alone', () => {
    expect(forPostgres("SELECT id FROM pushes WHERE user_id = ? AND kind = 'a?b' AND expires_at <= ?")).toBe(
      "SELECT id FROM pushes WHERE user_id = $1 AND kind = 'a?b' AND expires_at <= $2",
    );
  });

  it('makes an INSERT return the new row id, as MySQL and SQLite report it', () => {
    expect(forPostgres('INSERT INTO audit_entries (push_id, kind) VALUES (?, ?)')).toBe('INSERT INTO audit_entries (push_id, kind) VALUES ($1, $2) RETURNING id');
  });

  it('leaves other statements as they are', () => {
    expect(forPostgres('UPDATE pushes SET expired = TRUE WHERE id = ? AND expired = FALSE')).toBe('UPDATE pushes SET expired = TRUE WHERE id = $1 AND expired = FALSE');
  });
});

describe('advisoryLockKey', () => {
  it('is a stable signed 64-bit number per name', () => {
    const sut = advisoryLockKey('pwpush_migrations');
    expect(sut).toBe(advisoryLockKey('pwpush_migrations'));
    expect(sut).not.toBe(advisoryLockKey('pwpush_expiry_sweep'));
    expect(BigInt(sut)).toBeGreaterThanOrEqual(-(2n ** 63n));
    expect(BigInt(sut)).toBeLessThan(2n ** 63n);
  });
});

describe('Sql.writeIf on SQLite', () => {
  let dataSource: DataSource;
  let sql: Sql;
  let prepare: jest.SpyInstance;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    await dataSource.query('CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    await dataSource.query('CREATE TABLE notes (id INTEGER PRIMARY KEY, counter_id INTEGER NOT NULL)');
    await dataSource.query('INSERT INTO counters (id, n) VALUES (1, 0)');
    sql = new Sql(dataSource);
    prepare = jest.spyOn((dataSource.driver as unknown as { databaseConnection: { prepare(text: string): unknown } }).databaseConnection, 'prepare');
  });
  afterAll(() => dataSource.destroy());

  const bump = (from: number) => sql.writeIf({ sql: 'UPDATE counters SET n = n + 1 WHERE id = 1 AND n = ?', parameters: [from] }, [
    { sql: 'INSERT INTO notes (counter_id) VALUES (?)', parameters: [1] },
  ]);

  it('runs the statements after a guard that changed a row, and none after one that did not', async () => {
    expect(await bump(0)).toEqual([{ affected: 1, insertId: expect.any(Number) }, { affected: 1, insertId: 1 }]);
    expect(await bump(0)).toBeNull();
    expect(await dataSource.query('SELECT n, (SELECT COUNT(*) FROM notes) AS notes FROM counters')).toEqual([{ n: 1, notes: 1 }]);
  });

  it('prepares each statement text once, not at every call (SQLite compiles SQL at each prepare)', async () => {
    prepare.mockClear();
    for (let n = 1; n <= 5; n++) await bump(n);
    const texts = prepare.mock.calls.map(([text]) => text as string);
    // At most once each: the first writeIf of this file may have prepared them already.
    expect(texts.filter((text) => text.startsWith('UPDATE counters')).length).toBeLessThanOrEqual(1);
    expect(texts.filter((text) => text.startsWith('INSERT INTO notes')).length).toBeLessThanOrEqual(1);
    expect(await dataSource.query('SELECT n FROM counters')).toEqual([{ n: 6 }]);
  });
});
