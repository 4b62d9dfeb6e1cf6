import { UsersService } from '@app/auth';
import { client, request } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';
const unescape = (html: string) => html.replaceAll('&#x3D;', '=').replaceAll('&amp;', '&');
const FIELDS = ['id', 'at', 'source', 'kind', 'person', 'push_id', 'push_token_start', 'request_id', 'request_token_start', 'administrator', 'ip', 'user_agent', 'referrer', 'detail'];

/** RFC 4180 CSV, as a spreadsheet reads it: quoted fields may hold commas, quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

/**
 * The administration's audit log over HTTP on each engine: one log across pushes, secret requests and people,
 * filters, keyset pages that cover the log exactly once, and the CSV and JSON-lines exports
 * parsed and compared with the entries.
 */
describe('administration: the audit log', () => {
  let app: TestApp;
  let admin: Visitor;
  const adminEmail = 'auditor@example.com';
  const ownerEmail = 'owner@example.com';
  let ownerToken: string;
  let pushToken: string;
  let requestToken: string;

  beforeAll(async () => {
    app = await startTestApp();
    const users = app.service(UsersService);
    await users.create(adminEmail, PASSWORD, { admin: true });
    ownerToken = (await users.create(ownerEmail, PASSWORD)).api_token;
    admin = new Visitor(app.baseUrl);
    expect((await admin.submit('/users/sign_in', '/users/sign_in', { email: adminEmail, password: PASSWORD })).status).toBe(303);
    const api = client(app.baseUrl);
    // The owner's push, viewed with a hostile User-Agent; anonymous pushes; a failed sign-in; an administrative action.
    pushToken = (await api.createPush({ payload: 'owned secret', expire_after_views: 5 }, { authorization: `Bearer ${ownerToken}` })).url_token;
    await api.get(`/api/v2/pushes/${pushToken}`, { 'user-agent': '=HYPERLINK("http://evil.example/"),"quoted"' });
    // The owner's secret request through its life: a wrong passphrase, the answer, a read of it, the close.
    const owner = { authorization: `Bearer ${ownerToken}` };
    requestToken = (await api.post('/api/v2/requests', { request: { request: 'requested message', passphrase: 'request passphrase' } }, owner)).body.url_token;
    const respond = (passphrase: string) =>
      request(app.baseUrl, 'PATCH', `/api/v2/requests/${requestToken}/respond`, { json: { request: { response: 'the answered secret' } }, headers: { 'x-passphrase': passphrase } });
    expect((await respond('not it')).status).toBe(401);
    expect((await respond('request passphrase')).status).toBe(200);
    expect((await api.get(`/api/v2/requests/${requestToken}`, owner)).body.response).toBe('the answered secret');
    expect((await request(app.baseUrl, 'DELETE', `/api/v2/requests/${requestToken}`, { headers: owner })).status).toBe(200);
    // Anonymous pushes, and the owner's requests between them, so that pages hold entries of all three logs.
    for (let i = 0; i < 110; i++) {
      await api.createPush({ payload: `anonymous ${i}` });
      if (i % 2 === 0) await api.post('/api/v2/requests', { request: { request: `request message ${i}` } }, owner);
    }
    await new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: ownerEmail, password: 'not the password' });
    const [{ id: ownerId }] = await app.query<{ id: number }>('SELECT id FROM users WHERE email = ?', [ownerEmail]);
    expect((await admin.submit('/admin/users', `/admin/users/${ownerId}/promote`, {})).status).toBe(303);
  });
  afterAll(() => app.close({ drop: true }));

  const listed = (html: string) => [...html.matchAll(/<tr data-entry="([\w-]+)">([\s\S]*?)<\/tr>/g)].map(([, id, row]) => ({ id, cells: [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell.replace(/<[^>]+>/g, '')) }));
  /** Every entry of the log, in the pages' order, following their "next" links. */
  async function walk(path: string): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let pages = 0;
    for (let next: string | undefined = path; next; pages++) {
      const page = await admin.get(next);
      expect(page.status).toBe(200);
      ids.push(...listed(page.html).map((entry) => entry.id));
      next = /href="([^"]+)" rel="next"/.exec(unescape(page.html))?.[1];
    }
    return { ids, pages };
  }
  /** Every entry of the three logs, newest first; of one instant, pushes' before requests' before accounts', each newest first. */
  async function everyEntry(): Promise<string[]> {
    const logs = [
      ['push', 'SELECT id, created_at FROM audit_entries'],
      ['request', 'SELECT id, created_at FROM request_audit_entries'],
      ['account', 'SELECT id, created_at FROM security_events'],
    ] as const;
    const entries = [];
    for (const [order, [source, sql]] of logs.entries()) {
      for (const row of await app.query<{ id: number; created_at: number }>(sql)) entries.push({ id: `${source}-${row.id}`, at: Number(row.created_at), order, n: Number(row.id) });
    }
    return entries.sort((a, b) => b.at - a.at || a.order - b.order || b.n - a.n).map((entry) => entry.id);
  }

  it('shows one log across pushes, secret requests and accounts, newest first, 50 a page, every entry exactly once', async () => {
    const all = await everyEntry();
    expect(all.length).toBeGreaterThan(150);
    const { ids, pages } = await walk('/admin/audit');
    expect(pages).toBe(Math.ceil(all.length / 50));
    expect(ids).toEqual(all);
    // Pages hold entries of every log: the keyset of each is carried from page to page.
    expect(new Set(ids.slice(50, 100).map((id) => id.split('-')[0]))).toEqual(new Set(['push', 'request']));
    const first = listed((await admin.get('/admin/audit')).html);
    // The newest: the promotion, by the administrator, on the owner's account.
    expect(first[0].cells.slice(1, 5)).toEqual(['admin_granted', ownerEmail, '', adminEmail]);
  });

  it('filters by person, kind and dates', async () => {
    const byPerson = await walk(`/admin/audit?person=${encodeURIComponent(ownerEmail.toUpperCase())}`);
    const [{ id: pushId }] = await app.query<{ id: number }>('SELECT id FROM pushes WHERE url_token = ?', [pushToken]);
    const ownerPush = (await app.query<{ id: number }>('SELECT id FROM audit_entries WHERE push_id = ?', [pushId])).map((row) => `push-${row.id}`);
    const ownerAccount = (await app.query<{ id: number }>("SELECT id FROM security_events WHERE email = ?", [ownerEmail])).map((row) => `account-${row.id}`);
    const ownerRequests = (await app.query<{ id: number }>('SELECT id FROM request_audit_entries')).map((row) => `request-${row.id}`);
    expect(byPerson.ids.sort()).toEqual([...ownerPush, ...ownerRequests, ...ownerAccount].sort());
    expect(ownerPush.length).toBe(2);
    expect(ownerRequests.length).toBe(5 + 55);
    expect(ownerAccount.length).toBe(3);
    expect((await walk(`/admin/audit?person=${encodeURIComponent(adminEmail)}`)).ids.filter((id) => !id.startsWith('account-'))).toEqual([]);

    // A request's entries, marked as a request's, by the kinds of its log; a kind both logs have finds both.
    const [{ id: requestId }] = await app.query<{ id: number }>('SELECT id FROM requests WHERE url_token = ?', [requestToken]);
    for (const kind of ['response', 'response_view', 'failed_passphrase']) {
      const page = await admin.get(`/admin/audit?kind=${kind}`);
      expect(listed(page.html).map((row) => [row.id.split('-')[0], row.cells[1], row.cells[2], row.cells[3]])).toEqual([['request', kind, ownerEmail, `Secret request ${requestToken.slice(0, 4)}… (#${requestId})`]]);
      expect(page.html).not.toContain(requestToken);
    }
    expect(listed((await admin.get('/admin/audit?kind=expire')).html).map((row) => row.id.split('-')[0])).toEqual(['request']);
    const creations = (await walk('/admin/audit?kind=creation')).ids;
    expect(creations.filter((id) => id.startsWith('request-'))).toHaveLength(56);
    expect(creations.filter((id) => id.startsWith('push-'))).toHaveLength(111);

    const views = await admin.get('/admin/audit?kind=view');
    const rows = listed(views.html);
    expect(rows.map((row) => row.cells[1])).toEqual(['view']);
    expect(rows[0].cells[3]).toBe(`${pushToken.slice(0, 4)}… (#${pushId})`);
    expect(views.html).not.toContain(pushToken);
    expect(listed((await admin.get('/admin/audit?kind=sign_in_failed')).html).map((row) => row.cells.slice(1, 3))).toEqual([['sign_in_failed', ownerEmail]]);

    const today = new Date(app.clock.now()).toISOString().slice(0, 10);
    const tomorrow = new Date(app.clock.now() + 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(app.clock.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await walk(`/admin/audit?from=${today}&to=${today}`)).ids.length).toBe((await everyEntry()).length);
    expect((await walk(`/admin/audit?from=${tomorrow}`)).ids).toEqual([]);
    expect((await walk(`/admin/audit?to=${yesterday}`)).ids).toEqual([]);
    expect((await walk('/admin/audit?person=nobody@example.com')).ids).toEqual([]);
    expect((await admin.get('/admin/audit?kind=nonsense')).status).toBe(400);
    expect((await admin.get('/admin/audit?from=27.11.2026')).status).toBe(400);
    expect((await admin.get('/admin/audit/export?format=csv&kind=nonsense')).status).toBe(400);
    expect((await admin.get('/admin/audit/export?format=xml')).status).toBe(404);
  });

  it('exports the log as CSV and as JSON lines, each the entries of the pages, field for field', async () => {
    const { ids } = await walk('/admin/audit');
    const csvAnswer = await fetch(`${app.baseUrl}/admin/audit/export?format=csv`, { headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    expect([csvAnswer.status, csvAnswer.headers.get('content-type'), csvAnswer.headers.get('content-disposition')]).toEqual([200, 'text/csv; charset=utf-8', expect.stringMatching(/^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"$/)]);
    const [header, ...rows] = parseCsv(await csvAnswer.text());
    expect(header).toEqual(FIELDS);
    // An export is itself an administrative action: logged, before it streams, in the administrator's own log, so it heads the export.
    const [exported, ...listed] = rows;
    expect(listed.map((row) => row[0])).toEqual(ids);
    expect([exported[2], exported[3], exported[4], exported[9], JSON.parse(exported[13])]).toEqual(['account', 'audit_exported', adminEmail, adminEmail, { by: 'admin', admin: adminEmail, format: 'csv' }]);

    const jsonAnswer = await fetch(`${app.baseUrl}/admin/audit/export?format=jsonl`, { headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    expect(jsonAnswer.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const lines = (await jsonAnswer.text()).split('\n');
    expect(lines.pop()).toBe('');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, string | number | object | null>);
    expect(entries.map((entry) => entry.id)).toEqual([entries[0].id, exported[0], ...ids]);
    expect(entries[0]).toMatchObject({ kind: 'audit_exported', detail: { by: 'admin', admin: adminEmail, format: 'jsonl' } });
    for (const entry of entries) expect(Object.keys(entry)).toEqual(FIELDS);

    // The same entries in both, field for field (CSV: text; a formula-looking text behind an apostrophe).
    const asCsv = (value: string | number | object | null) =>
      value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : typeof value === 'string' && /^[=+\-@]/.test(value) ? `'${value}` : String(value);
    expect(rows).toEqual(entries.slice(1).map((entry) => FIELDS.map((field) => asCsv(entry[field]))));

    // The view with the hostile User-Agent, as it came, in JSON; disarmed in CSV.
    const view = entries.find((entry) => entry.kind === 'view')!;
    expect(view).toEqual({
      id: expect.stringMatching(/^push-\d+$/),
      at: expect.any(String),
      source: 'push',
      kind: 'view',
      person: ownerEmail,
      push_id: expect.any(Number),
      push_token_start: pushToken.slice(0, 4),
      request_id: null,
      request_token_start: null,
      administrator: null,
      ip: '127.0.0.1',
      user_agent: '=HYPERLINK("http://evil.example/"),"quoted"',
      referrer: '',
      detail: null,
    });
    // The answer to the owner's request, as a request's entry.
    const [{ id: requestId }] = await app.query<{ id: number }>('SELECT id FROM requests WHERE url_token = ?', [requestToken]);
    expect(entries.find((entry) => entry.kind === 'response')).toEqual({
      id: expect.stringMatching(/^request-\d+$/),
      at: expect.any(String),
      source: 'request',
      kind: 'response',
      person: ownerEmail,
      push_id: null,
      push_token_start: null,
      request_id: Number(requestId),
      request_token_start: requestToken.slice(0, 4),
      administrator: null,
      ip: '127.0.0.1',
      user_agent: expect.any(String),
      referrer: '',
      detail: null,
    });
    const promotion = entries.find((entry) => entry.kind === 'admin_granted')!;
    expect([promotion.source, promotion.person, promotion.administrator, promotion.detail]).toEqual(['account', ownerEmail, adminEmail, { by: 'admin', admin: adminEmail }]);
    // Nothing of a secret or a full token in either.
    const everything = JSON.stringify(entries) + JSON.stringify(rows);
    for (const secret of ['owned secret', 'anonymous 1', pushToken, 'requested message', 'request message 2', 'the answered secret', 'request passphrase', requestToken]) expect(everything).not.toContain(secret);
  });
});
