import { SecurityLog, UsersService } from '@app/auth';
import { client } from '../support/http';
import { turnOnTwoFactor } from '../support/two-factor';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';
/** Handlebars writes = in attributes as &#x3D;. */
const unescape = (html: string) => html.replaceAll('&#x3D;', '=');

/** Every path and action of the administration, for the gate's checks. */
const GETS = ['/admin', '/admin/users', '/admin/users?page=2', '/admin/pushes', '/admin/audit', '/admin/notifications', '/admin/custom_css', '/admin/audit/export?format=csv', '/admin/audit/export?format=jsonl', '/admin/audit?push_before=5'];
const POSTS = ['/admin/users/1/promote', '/admin/users/1/revoke', '/admin/users/1/disable', '/admin/users/1/enable', '/admin/users/1/reset_two_factor', '/admin/users/1/send_reset', '/admin/users/1/delete', '/admin/pushes/1/expire', '/admin/notifications/1/retry', '/admin/custom_css'];

/**
 * The administration center over HTTP on each engine: its gate (404 to anyone but an administrator,
 * CSRF), the counts, the people and the actions on them with their effects and their log entries,
 * the pushes' metadata (never a secret) and "Expire".
 */
describe('administration', () => {
  let app: TestApp;
  let users: UsersService;
  let admin: Visitor;
  let adminEmail: string;
  let adminToken: string;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp();
    users = app.service(UsersService);
    adminEmail = 'root@example.com';
    adminToken = (await users.create(adminEmail, PASSWORD, { admin: true })).api_token;
    admin = await signIn(adminEmail);
  });
  afterAll(() => app.close({ drop: true }));

  async function signIn(email: string): Promise<Visitor> {
    const visitor = new Visitor(app.baseUrl);
    const signedIn = await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    return visitor;
  }
  async function person(prefix = 'person'): Promise<{ email: string; token: string; id: number }> {
    const email = `${prefix}-${++n}@example.com`;
    const { api_token } = await users.create(email, PASSWORD);
    return { email, token: api_token, id: (await users.find(email)).id };
  }
  /** POSTs an action from the people page, with that page's CSRF token. */
  const act = (visitor: Visitor, id: number, action: string) => visitor.submit('/admin/users', `/admin/users/${id}/${action}`, {});

  it('answers 404 on every path and action to a visitor without a session and to a signed-in person who is not an administrator', async () => {
    const { email } = await person();
    const visitors = [new Visitor(app.baseUrl), await signIn(email)];
    for (const visitor of visitors) {
      for (const path of GETS) {
        const answer = await visitor.get(path);
        expect([path, answer.status, answer.location]).toEqual([path, 404, null]);
        expect(answer.html).not.toContain('Administration');
      }
      for (const path of POSTS) {
        const answer = await visitor.submit('/', path, {});
        expect([path, answer.status, answer.location]).toEqual([path, 404, null]);
      }
    }
    // An API token is no way in either.
    const { token } = await person();
    const api = await fetch(`${app.baseUrl}/admin`, { headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(404);
  });

  it('refuses a POST without the form token (CSRF), and does nothing', async () => {
    const target = await person();
    const refused = await admin.submit('/', `/admin/users/${target.id}/promote`, { _csrf: 'forged' });
    expect(refused.status).toBe(403);
    const bare = await fetch(`${app.baseUrl}/admin/users/${target.id}/promote`, {
      method: 'POST',
      headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(bare.status).toBe(403);
    expect((await users.list()).find((user) => user.email === target.email)?.admin).toBe(false);
  });

  it('shows the counts, the version and the security settings at a glance', async () => {
    const [{ people }] = await app.query<{ people: number }>('SELECT COUNT(*) AS people FROM users');
    const home = await admin.get('/admin');
    expect(home.status).toBe(200);
    const facts = [...home.html.matchAll(/<dt>(?:<a href="[^"]*">)?([^<]+)(?:<\/a>)?<\/dt><dd>([^<]*)<\/dd>/g)].map(([, k, v]) => [k, v]);
    expect(Object.fromEntries(facts)).toEqual({
      People: String(people),
      Pushes: '0',
      'Active pushes': '0',
      'Audit entries': '0',
      'Notifications waiting': '0',
      'Notifications given up': '0',
      Version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      'Pushes without an account': 'On',
      'Sign-ups': 'On',
      'Two-factor authentication required': 'No',
      'Single sign-on': 'Off',
      'Account emails': 'Off',
    });
  });

  /** The people page's rows: id and cells, as text. */
  const rows = (html: string) =>
    [...html.matchAll(/<tr data-person="(\d+)">([\s\S]*?)<\/tr>/g)].map(([, id, row]) => ({
      id: Number(id),
      cells: [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()),
      actions: [...row.matchAll(/action="\/admin\/users\/\d+\/(\w+)"/g)].map(([, action]) => action),
    }));
  /** The person's security log entries written by administrators, oldest first. */
  const byAdmin = async (id: number) =>
    (await app.service(SecurityLog).list(id)).events
      .filter((event) => event.detail?.by === 'admin')
      .reverse()
      .map((event) => ({ kind: event.kind, admin: event.detail?.admin, ip: event.ip }));

  it('lists people 25 a page, oldest first, and finds them by a part of their address in any case', async () => {
    const before = (await users.list()).length;
    for (let i = 0; i < 27; i++) await person('paging');
    const all = (await users.list()).map((user) => user.email);
    const first = await admin.get('/admin/users');
    expect(rows(first.html).map((row) => row.cells[0].replace(' (you)', ''))).toEqual(all.slice(0, 25));
    expect(unescape(first.html)).toContain('href="/admin/users?page=2" rel="next"');
    const second = await admin.get('/admin/users?page=2');
    expect(rows(second.html).map((row) => row.cells[0])).toEqual(all.slice(25, 50));
    expect(before + 27).toBe(all.length);
    const found = await admin.get('/admin/users?q=PAGING-1');
    // paging-1x… of this test: the ones numbered 1, 10..19 by the shared counter, whichever they are.
    const matches = all.filter((email) => email.startsWith('paging-1'));
    expect(rows(found.html).map((row) => row.cells[0])).toEqual(matches);
    expect(matches.length).toBeGreaterThan(0);
    // % and _ are themselves, never wildcards.
    expect(rows((await admin.get('/admin/users?q=%25')).html)).toEqual([]);
    expect((await admin.get('/admin/users?page=0')).status).toBe(400);
  });

  it('shows each person (created, last sign-in, method, two-factor, administrator, disabled) and offers no action on oneself', async () => {
    const page = await admin.get(`/admin/users?q=${adminEmail}`);
    const [me] = rows(page.html);
    expect(me.cells.slice(0, 1)).toEqual([`${adminEmail} (you)`]);
    expect(me.cells.slice(3, 7)).toEqual(['Password', 'No', 'Yes', 'No']);
    expect(me.cells[2]).not.toBe('Never');
    expect(me.actions).toEqual([]);
    const self = (await users.find(adminEmail)).id;
    for (const action of ['revoke', 'disable', 'delete']) expect((await act(admin, self, action)).status).toBe(403);
    expect((await admin.get('/admin')).status).toBe(200);
    const other = await person();
    const [row] = rows((await admin.get(`/admin/users?q=${other.email}`)).html);
    expect(row.cells.slice(2, 7)).toEqual(['Never', 'Password', 'No', 'No', 'No']);
    // No mailed reset without account emails; no two-factor reset while it is off.
    expect(row.actions).toEqual(['promote', 'disable', 'delete']);
  });

  it('promotes and revokes: the person gets the administration, then 404 again; both logged with who and from where', async () => {
    const target = await person();
    const visitor = await signIn(target.email);
    expect((await visitor.get('/admin')).status).toBe(404);
    const promoted = await act(admin, target.id, 'promote');
    expect([promoted.status, promoted.location]).toEqual([303, `/admin/users?q=${encodeURIComponent(target.email)}&done=promote`]);
    expect((await admin.get(promoted.location!)).html).toContain('The person is now an administrator.');
    expect((await visitor.get('/admin')).status).toBe(200);
    expect((await act(admin, target.id, 'revoke')).status).toBe(303);
    expect((await visitor.get('/admin')).status).toBe(404);
    expect(await byAdmin(target.id)).toEqual([
      { kind: 'admin_granted', admin: adminEmail, ip: '127.0.0.1' },
      { kind: 'admin_revoked', admin: adminEmail, ip: '127.0.0.1' },
    ]);
  });

  it('disables (the token gets 401, the session ends, sign-in is refused) and enables again', async () => {
    const target = await person();
    const api = client(app.baseUrl);
    const visitor = await signIn(target.email);
    expect((await api.get('/api/v2/pushes/active', { authorization: `Bearer ${target.token}` })).status).toBe(200);
    expect((await act(admin, target.id, 'disable')).status).toBe(303);
    expect((await api.get('/api/v2/pushes/active', { authorization: `Bearer ${target.token}` })).status).toBe(401);
    expect((await visitor.get('/users/edit')).status).toBe(303);
    const [row] = rows((await admin.get(`/admin/users?q=${target.email}`)).html);
    expect([row.cells[6], row.actions]).toEqual(['Yes', ['promote', 'enable', 'delete']]);
    const refused = await new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: target.email, password: PASSWORD });
    expect(refused.status).not.toBe(303);
    expect((await act(admin, target.id, 'enable')).status).toBe(303);
    await signIn(target.email);
    expect((await byAdmin(target.id)).map((entry) => entry.kind)).toEqual(['account_disabled', 'account_enabled']);
  });

  it('resets two-factor: off for the person, who then signs in with the password alone', async () => {
    const target = await person();
    await turnOnTwoFactor(await signIn(target.email), () => app.clock.now());
    const [row] = rows((await admin.get(`/admin/users?q=${target.email}`)).html);
    expect([row.cells[4], row.actions]).toEqual(['Yes', ['promote', 'disable', 'reset_two_factor', 'delete']]);
    expect((await act(admin, target.id, 'reset_two_factor')).status).toBe(303);
    await signIn(target.email);
    expect(await byAdmin(target.id)).toEqual([{ kind: 'two_factor_disabled', admin: adminEmail, ip: '127.0.0.1' }]);
  });

  it('deletes a person: their account, tokens and pushes are gone; the deletion is logged under their address', async () => {
    const target = await person();
    const api = client(app.baseUrl);
    const pushes = [await api.createPush({ payload: 'theirs 1' }, { authorization: `Bearer ${target.token}` }), await api.createPush({ payload: 'theirs 2' }, { authorization: `Bearer ${target.token}` })];
    const deleted = await act(admin, target.id, 'delete');
    expect([deleted.status, deleted.location]).toEqual([303, '/admin/users?done=delete']);
    expect(await app.query('SELECT id FROM users WHERE id = ?', [target.id])).toEqual([]);
    expect(await app.query('SELECT id FROM pushes WHERE user_id = ? OR url_token IN (?, ?)', [target.id, pushes[0].url_token, pushes[1].url_token])).toEqual([]);
    expect((await api.get(`/api/v2/pushes/${pushes[0].url_token}`)).status).toBe(404);
    expect((await api.get('/api/v2/pushes/active', { authorization: `Bearer ${target.token}` })).status).toBe(401);
    const logged = await app.query<{ kind: string; email: string; detail: string }>("SELECT kind, email, detail FROM security_events WHERE email = ? AND kind = 'account_deleted'", [target.email]);
    expect(logged.map((entry) => ({ ...entry, detail: JSON.parse(entry.detail) }))).toEqual([{ kind: 'account_deleted', email: target.email, detail: { by: 'admin', admin: adminEmail } }]);
    expect((await act(admin, target.id, 'delete')).status).toBe(404);
    expect((await act(admin, target.id, 'nonsense')).status).toBe(404);
  });

  it('lists every push by its metadata, never its payload, passphrase, name, note or full token; and expires one, audited as the administrator', async () => {
    const owner = await person();
    const api = client(app.baseUrl);
    const secrets = { payload: 'PAYLOAD-zq81', passphrase: 'PASSPHRASE-zq82', name: 'NAME-zq83', note: 'NOTE-zq84' };
    const owned = await api.createPush({ ...secrets, expire_after_views: 3, expire_after_days: 2 }, { authorization: `Bearer ${owner.token}` });
    const anonymous = await api.createPush({ payload: 'ANON-zq85' });
    const page = await admin.get('/admin/pushes');
    expect(page.status).toBe(200);
    for (const secret of [...Object.values(secrets), 'ANON-zq85', owned.url_token, anonymous.url_token]) expect(page.html).not.toContain(secret);
    const row = new RegExp(`<tr data-push="\\d+">\\s*<td><code>${owned.url_token.slice(0, 4)}…</code></td>\\s*<td>Text</td>\\s*<td>${owner.email}</td>`);
    expect(page.html).toMatch(row);
    const [{ id }] = await app.query<{ id: number }>('SELECT id FROM pushes WHERE url_token = ?', [owned.url_token]);
    const expired = await admin.submit('/admin/pushes', `/admin/pushes/${id}/expire`, {});
    expect([expired.status, expired.location]).toEqual([303, '/admin/pushes?done=expire']);
    const after = await api.get(`/api/v2/pushes/${owned.url_token}/preview`);
    expect(after.status).toBe(200);
    const retrieved = await api.get(`/api/v2/pushes/${owned.url_token}?passphrase=${secrets.passphrase}`);
    expect([retrieved.body.expired, retrieved.body.payload]).toEqual([true, null]);
    const entries = await app.query<{ kind: string; ip: string; details: string | null }>("SELECT kind, ip, details FROM audit_entries WHERE push_id = ? AND kind = 'expire'", [id]);
    expect(entries.map((entry) => ({ ...entry, details: entry.details && JSON.parse(entry.details) }))).toEqual([{ kind: 'expire', ip: '127.0.0.1', details: { admin: adminEmail } }]);
    // The owner's audit log shows the expiry as the API has always shown it.
    const log = await api.get(`/api/v2/pushes/${owned.url_token}/audit`, { authorization: `Bearer ${owner.token}` });
    expect(log.body.logs.map((entry: { kind: string }) => entry.kind)).toContain('expire');
    expect(log.body.logs.find((entry: { kind: string }) => entry.kind === 'expire')).not.toHaveProperty('notify_by_email');
    expect((await admin.submit('/admin/pushes', '/admin/pushes/999999/expire', {})).status).toBe(404);
  });

  it('pages pushes past 25 by keyset, newest first', async () => {
    const api = client(app.baseUrl);
    for (let i = 0; i < 26; i++) await api.createPush({ payload: `many ${i}` });
    const ids = (await app.query<{ id: number }>('SELECT id FROM pushes ORDER BY id DESC')).map((row) => Number(row.id));
    const listed = (html: string) => [...html.matchAll(/<tr data-push="(\d+)">/g)].map(([, id]) => Number(id));
    const first = await admin.get('/admin/pushes');
    expect(listed(first.html)).toEqual(ids.slice(0, 25));
    const next = /href="(\/admin\/pushes\?before=\d+)" rel="next"/.exec(unescape(first.html))![1];
    expect(listed((await admin.get(next)).html)).toEqual(ids.slice(25, 50));
  });

  it("audits an administrator's retrieval of someone's push as admin_view, not counted", async () => {
    const owner = await person();
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'one view only', expire_after_views: 1 }, { authorization: `Bearer ${owner.token}` });
    for (let i = 0; i < 2; i++) {
      const seen = await api.get(`/api/v2/pushes/${push.url_token}`, { authorization: `Bearer ${adminToken}` });
      expect([seen.status, seen.body.payload, seen.body.views_remaining, seen.body.expired]).toEqual([200, 'one view only', 1, false]);
    }
    const log = await api.get(`/api/v2/pushes/${push.url_token}/audit`, { authorization: `Bearer ${owner.token}` });
    expect(log.body.logs.map((entry: { kind: string }) => entry.kind)).toEqual(['creation', 'admin_view', 'admin_view']);
    const [{ details }] = await app.query<{ details: string }>("SELECT details FROM audit_entries WHERE kind = 'admin_view' AND push_id = (SELECT id FROM pushes WHERE url_token = ?) ORDER BY id LIMIT 1", [push.url_token]);
    expect(JSON.parse(details)).toEqual({ admin: adminEmail });
    // Anyone else's retrieval still counts: the one view is used.
    expect((await api.get(`/api/v2/pushes/${push.url_token}`)).body.payload).toBe('one view only');
    expect((await api.get(`/api/v2/pushes/${push.url_token}`)).body.expired).toBe(true);
  });

  it('lists deliveries waiting, failing and given up, never their content, and retries a dead one', async () => {
    const owner = await person();
    const now = app.clock.now();
    await app.query('INSERT INTO outbox (type, user_id, payload, email_count, created_at) VALUES (?, ?, ?, 0, ?)', ['push.viewed', owner.id, '{"secret-ish":"PAYLOAD-OF-EVENT"}', now]);
    const [{ id: outboxId }] = await app.query<{ id: number }>('SELECT MAX(id) AS id FROM outbox');
    const insert = (status: string, attempts: number, error: string | null) =>
      app.query('INSERT INTO deliveries (webhook_id, outbox_id, event, status, attempts, next_attempt_at, last_error, created_at, updated_at) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?)', [outboxId, 'push.viewed', status, attempts, now + 60_000, error, now, now]);
    await insert('pending', 0, null);
    await insert('pending', 2, 'connection refused');
    await insert('dead', 8, 'gave up after 8 attempts');
    const ids = (await app.query<{ id: number }>('SELECT id FROM deliveries WHERE outbox_id = ? ORDER BY id', [outboxId])).map((row) => Number(row.id));
    const listed = async (status: string) => [...(await admin.get(`/admin/notifications?status=${status}`)).html.matchAll(/<tr data-delivery="(\d+)">/g)].map(([, id]) => Number(id));
    expect([await listed('pending'), await listed('failed'), await listed('dead')]).toEqual([[ids[0]], [ids[1]], [ids[2]]]);
    const dead = await admin.get('/admin/notifications?status=dead');
    expect(dead.html).toContain('gave up after 8 attempts');
    expect(dead.html).not.toContain('PAYLOAD-OF-EVENT');
    const home = await admin.get('/admin');
    expect(home.html).toMatch(/Notifications waiting<\/a><\/dt><dd>2<\/dd>/);
    expect(home.html).toMatch(/Notifications given up<\/a><\/dt><dd>1<\/dd>/);
    const retried = await admin.submit('/admin/notifications?status=dead', `/admin/notifications/${ids[2]}/retry`, {});
    expect([retried.status, retried.location]).toEqual([303, '/admin/notifications?status=pending&done=retry']);
    const [row] = await app.query<{ status: string; attempts: number; last_error: string | null }>('SELECT status, attempts, last_error FROM deliveries WHERE id = ?', [ids[2]]);
    expect([row.status, Number(row.attempts), row.last_error]).toEqual(['pending', 0, null]);
    expect(await listed('pending')).toEqual([ids[2], ids[0]]);
    // Only a dead delivery can be retried.
    expect((await admin.submit('/admin/users', `/admin/notifications/${ids[0]}/retry`, {})).status).toBe(404);
  });

  it('keeps the custom CSS in the database and serves it as a stylesheet every page links; the CSP stays as it was', async () => {
    const before = await fetch(`${app.baseUrl}/custom.css`);
    expect([before.status, before.headers.get('content-type'), await before.text()]).toEqual([200, 'text/css; charset=utf-8', '']);
    const css = 'body { background: rgb(1, 2, 3); }\n.brand::after { content: "<b>&"; }';
    const saved = await admin.submit('/admin/custom_css', '/admin/custom_css', { css });
    expect([saved.status, saved.location]).toEqual([303, '/admin/custom_css?done=save']);
    const served = await fetch(`${app.baseUrl}/custom.css`);
    expect([served.status, served.headers.get('content-type'), served.headers.get('cache-control'), await served.text()]).toEqual([200, 'text/css; charset=utf-8', 'no-cache', css]);
    const again = await fetch(`${app.baseUrl}/custom.css`, { headers: { 'if-none-match': served.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const [{ saved_by }] = await app.query<{ saved_by: string }>('SELECT saved_by FROM custom_stylesheets ORDER BY id DESC LIMIT 1');
    expect(saved_by).toBe(adminEmail);
    const [logged] = await app.query<{ kind: string; email: string; detail: string }>("SELECT kind, email, detail FROM security_events WHERE kind = 'custom_css_saved'");
    expect({ ...logged, detail: JSON.parse(logged.detail) }).toEqual({ kind: 'custom_css_saved', email: adminEmail, detail: { by: 'admin', admin: adminEmail, characters: css.length } });
    for (const path of ['/', '/users/token', '/admin', '/admin/users', '/p/unknown-token']) {
      const page = await admin.get(path);
      expect(page.html).toContain('<link rel="stylesheet" href="/custom.css">');
      expect(page.html).not.toMatch(/<style|style="/);
    }
    const page = await fetch(`${app.baseUrl}/`);
    expect(page.headers.get('content-security-policy')).toMatch(/(^|; )style-src 'self'(;|$)/);
    const tooLong = await admin.submit('/admin/custom_css', '/admin/custom_css', { css: 'a'.repeat(65_537) });
    expect([tooLong.status, tooLong.html]).toEqual([422, expect.stringContaining('The stylesheet may have at most 65,536 characters.')]);
    expect(await (await fetch(`${app.baseUrl}/custom.css`)).text()).toBe(css);
  });

  // Last: a second app on the same database takes over passport's strategies (one registry per process), so the first app's tokens stop working after it closes.
  it('under PWP__REQUIRE_MFA sends an administrator without two-factor to its setup, and still answers 404 to others', async () => {
    const strict = await startTestApp({ PWP__REQUIRE_MFA: 'true' }, app.database);
    try {
      const visitor = new Visitor(strict.baseUrl);
      expect((await visitor.submit('/users/sign_in', '/users/sign_in', { email: adminEmail, password: PASSWORD })).status).toBe(303);
      const home = await visitor.get('/admin');
      expect([home.status, home.location]).toEqual([303, '/user/two_factor/backup_codes']);
      expect((await new Visitor(strict.baseUrl).get('/admin')).status).toBe(404);
    } finally {
      await strict.close();
    }
  });

});
