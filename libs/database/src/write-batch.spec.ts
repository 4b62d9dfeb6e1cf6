import { DataSource } from 'typeorm';
import { Sql } from './sql';
import { type Statement, total, WriteBatch } from './write-batch';

const ENTRIES = 'entries';
const MAILED = 'mailed';

describe('WriteBatch on SQLite', () => {
  let dataSource: DataSource;
  let sql: Sql;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    await dataSource.query('CREATE TABLE parents (id INTEGER PRIMARY KEY, entries INTEGER NOT NULL, mailed INTEGER NOT NULL)');
    await dataSource.query('CREATE TABLE entries (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL, kind TEXT NOT NULL)');
    await dataSource.query('CREATE TABLE mails (id INTEGER PRIMARY KEY, entry_id INTEGER NOT NULL, payload TEXT NOT NULL, recipients INTEGER NOT NULL)');
    sql = new Sql(dataSource);
  });
  afterAll(() => dataSource.destroy());
  beforeEach(async () => {
    for (const table of ['parents', 'entries', 'mails']) await dataSource.query(`DELETE FROM ${table}`);
  });

  /** A parent whose counters come from what its batch adds, as a push's do. */
  const parent = (): WriteBatch => new WriteBatch({ sql: 'INSERT INTO parents (entries, mailed) VALUES (?, ?)', parameters: [total(ENTRIES), total(MAILED)] }, 'parent');
  const entry = (batch: WriteBatch, kind: string) =>
    batch.add({ sql: 'INSERT INTO entries (parent_id, kind) VALUES (?, ?)', parameters: [batch.guardId, kind], adds: { [ENTRIES]: 1 } }, kind);
  const mail = (batch: WriteBatch, about: ReturnType<typeof entry>, recipients: number): Statement => ({
    sql: 'INSERT INTO mails (entry_id, payload, recipients) VALUES (?, ?, ?)',
    parameters: [about, about.map((id) => JSON.stringify({ entry: id })), recipients],
    adds: { [MAILED]: recipients },
  });
  const rows = async () => ({
    parents: await dataSource.query<{ id: number; entries: number; mailed: number }[]>('SELECT id, entries, mailed FROM parents'),
    mails: await dataSource.query<Record<string, unknown>[]>('SELECT e.kind, e.parent_id, m.entry_id, m.payload FROM mails m JOIN entries e ON e.id = m.entry_id'),
  });

  it.each([
    ['the mail right after its entry', ['creation', 'mail entry', 'mail']],
    ['entries between the mail and its entry', ['mail entry', 'creation', 'view', 'mail']],
    ['the mail entry first, the others last', ['mail entry', 'mail', 'creation', 'view', 'expire']],
  ])('points each statement at the row it names, whatever the order (%s), and counts what was added', async (_, order) => {
    const batch = parent();
    let mailEntry: ReturnType<typeof entry> | undefined;
    for (const step of order) {
      if (step === 'mail') batch.add(mail(batch, mailEntry!, 3), 'mail');
      else if (step === 'mail entry') mailEntry = entry(batch, 'creation_email_send');
      else entry(batch, step);
    }

    const written = await sql.run(batch);

    const { parents, mails } = await rows();
    const entries = order.filter((step) => step !== 'mail').length;
    expect(parents).toEqual([{ id: written!.idOf(batch.guardId), entries, mailed: 3 }]);
    expect(mails).toEqual([{ kind: 'creation_email_send', parent_id: parents[0].id, entry_id: written!.idOf(mailEntry!), payload: JSON.stringify({ entry: written!.idOf(mailEntry!) }) }]);
  });

  it("refuses an id of another batch's statement before anything is written, naming both", async () => {
    const other = parent();
    const foreign = entry(other, 'creation');
    const batch = parent();

    expect(() => batch.add(mail(batch, foreign, 1), 'mail')).toThrow('"mail" names the id of "creation", which another batch inserts.');
    expect((await rows()).parents).toEqual([]);
  });

  it('takes no statement once it has run', async () => {
    const batch = parent();
    await sql.run(batch);

    expect(() => entry(batch, 'late')).toThrow('Cannot add "late": the batch has run.');
  });

  it('writes nothing when a later guard changes nothing: the statements before it are undone', async () => {
    const batch = parent();
    entry(batch, 'creation');
    batch.add({ sql: 'UPDATE parents SET entries = entries WHERE id = ? AND entries > 100', parameters: [batch.guardId], guard: true }, 'limit');
    entry(batch, 'never');

    expect(await sql.run(batch)).toBeNull();
    expect(await dataSource.query('SELECT (SELECT COUNT(*) FROM parents) AS parents, (SELECT COUNT(*) FROM entries) AS entries')).toEqual([{ parents: 0, entries: 0 }]);
  });
});
