import { SecurityLog, UsersService } from '@app/auth';
import { Sql } from '@app/database';
import { startTestApp, TestApp } from '../support/test-app';

describe('security log', () => {
  let app: TestApp;
  let log: SecurityLog;

  beforeAll(async () => {
    app = await startTestApp();
    log = app.service(SecurityLog);
  });
  afterAll(() => app.close({ drop: true }));

  it("lists a person's entries newest first, a page at a time by keyset, and everyone's for the administration", async () => {
    await app.service(UsersService).create('paged@example.com');
    await app.service(UsersService).create('other@example.com');
    const [paged, other] = await Promise.all(['paged@example.com', 'other@example.com'].map((email) => app.service(UsersService).find(email)));
    const client = { ip: '203.0.113.9', userAgent: 'Test browser' };
    for (let n = 0; n < 5; n++) await log.record({ userId: paged.id, email: paged.email, kind: 'sign_in_failed', client, detail: { n } });
    await log.record({ userId: other.id, email: other.email, kind: 'sign_in', client });

    const first = await log.list(paged.id, { limit: 4 });
    expect(first.events.map((event) => event.detail)).toEqual([{ n: 4 }, { n: 3 }, { n: 2 }, { n: 1 }]);
    expect(first.events[0]).toMatchObject({ user_id: paged.id, email: 'paged@example.com', kind: 'sign_in_failed', ip: '203.0.113.9', user_agent: 'Test browser' });
    expect(Date.parse(first.events[0].created_at)).toBeGreaterThan(0);
    const second = await log.list(paged.id, { limit: 4, before: first.next });
    expect([second.events.map((event) => event.detail), second.next]).toEqual([[{ n: 0 }, { by: 'cli', admin: false }], undefined]);
    expect((await log.listAll({ limit: 2 })).events.map((event) => [event.email, event.kind])).toEqual([
      ['other@example.com', 'sign_in'],
      ['paged@example.com', 'sign_in_failed'],
    ]);
    expect((await log.listAll({ kinds: ['account_created'] })).events.map((event) => event.email)).toEqual(['other@example.com', 'paged@example.com']);
  });

  it('writes an entry only with the transaction of its change (Sql.writeIf), and keeps entries after the account is deleted', async () => {
    await app.service(UsersService).create('leaving@example.com');
    const user = await app.service(UsersService).find('leaving@example.com');
    const sql = app.service(Sql);
    const entry = log.statement({ userId: user.id, email: user.email, kind: 'password_changed' });
    expect(await sql.writeIf({ sql: 'UPDATE users SET updated_at = ? WHERE id = ?', parameters: [1, -1] }, [entry])).toBeNull();
    expect(await sql.writeIf({ sql: 'UPDATE users SET updated_at = ? WHERE id = ?', parameters: [1, user.id] }, [entry])).not.toBeNull();
    expect((await log.list(user.id)).events.map((event) => event.kind)).toEqual(['password_changed', 'account_created']);

    await app.service(UsersService).delete('leaving@example.com');
    const kept = await app.query<{ user_id: unknown; kind: string }>('SELECT user_id, kind FROM security_events WHERE email = ? ORDER BY id', ['leaving@example.com']);
    expect(kept.map((row) => [row.user_id, row.kind])).toEqual([
      [null, 'account_created'],
      [null, 'password_changed'],
      [null, 'account_deleted'],
    ]);
  });
});
