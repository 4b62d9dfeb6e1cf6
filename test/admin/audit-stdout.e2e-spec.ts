import { UsersService } from '@app/auth';
import { client, request } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const PASSWORD = 'a long password';

/**
 * PWP__AUDIT__STDOUT=true: every audit entry and security event, once written, is one JSON line on
 * standard output, the same entries the administration's log shows; off, there is none.
 */
describe('administration: the audit trail on standard output', () => {
  let app: TestApp;
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);

  beforeAll(async () => {
    app = await startTestApp({ PWP__AUDIT__STDOUT: 'true' });
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]): boolean => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      if (text.startsWith('{"audit":')) lines.push(...text.split('\n').filter(Boolean));
      else return write(chunk, ...rest);
      return true;
    });
  });
  afterAll(async () => {
    process.stdout.write = write;
    await app.close({ drop: true });
  });

  it('writes each entry as it is written, with the documented fields and no secret', async () => {
    const users = app.service(UsersService);
    const { api_token: ownerToken } = await users.create('owner@example.com', PASSWORD);
    await users.create('root@example.com', PASSWORD, { admin: true });
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'stdout secret', passphrase: 'stdout passphrase', note: 'stdout note', name: 'stdout name' }, { authorization: `Bearer ${ownerToken}` });
    await api.get(`/api/v2/pushes/${push.url_token}?passphrase=wrong`);
    await api.get(`/api/v2/pushes/${push.url_token}?passphrase=stdout%20passphrase`, { 'user-agent': 'agent/1' });
    const owner = { authorization: `Bearer ${ownerToken}` };
    const requestToken = (await api.post('/api/v2/requests', { request: { request: 'stdout request message', passphrase: 'stdout request passphrase', note: 'stdout request note' } }, owner)).body.url_token as string;
    const respond = (passphrase: string) =>
      request(app.baseUrl, 'PATCH', `/api/v2/requests/${requestToken}/respond`, { json: { request: { response: 'stdout answer' } }, headers: { 'x-passphrase': passphrase } });
    expect((await respond('wrong')).status).toBe(401);
    expect((await respond('stdout request passphrase')).status).toBe(200);
    expect((await api.get(`/api/v2/requests/${requestToken}`, owner)).status).toBe(200);
    expect((await request(app.baseUrl, 'DELETE', `/api/v2/requests/${requestToken}`, { headers: owner })).status).toBe(200);
    const admin = new Visitor(app.baseUrl);
    await admin.submit('/users/sign_in', '/users/sign_in', { email: 'root@example.com', password: PASSWORD });
    const [{ id: ownerId }] = await app.query<{ id: number }>("SELECT id FROM users WHERE email = 'owner@example.com'");
    expect((await admin.submit('/admin/users', `/admin/users/${ownerId}/disable`, {})).status).toBe(303);

    const events = lines.map((line) => (JSON.parse(line) as { audit: Record<string, unknown> }).audit);
    const [{ id: pushId }] = await app.query<{ id: number }>('SELECT id FROM pushes WHERE url_token = ?', [push.url_token]);
    expect(events.map((event) => [event.source, event.kind])).toEqual([
      ['account', 'account_created'],
      ['account', 'account_created'],
      ['push', 'creation'],
      ['push', 'failed_passphrase'],
      ['push', 'view'],
      ['request', 'creation'],
      ['request', 'failed_passphrase'],
      ['request', 'response'],
      ['request', 'response_view'],
      ['request', 'expire'],
      ['account', 'sign_in'],
      ['account', 'account_disabled'],
    ]);
    for (const event of events) {
      expect(Object.keys(event)).toEqual(['source', 'kind', 'at', 'push_id', 'request_id', 'user_id', 'email', 'administrator', 'ip', 'user_agent', 'referrer', 'detail']);
      expect(Date.parse(event.at as string)).toBeGreaterThan(0);
    }
    expect(events.filter((event) => event.source === 'push').map((event) => event.push_id)).toEqual([Number(pushId), Number(pushId), Number(pushId)]);
    const [{ id: requestId }] = await app.query<{ id: number }>('SELECT id FROM requests WHERE url_token = ?', [requestToken]);
    expect(events.filter((event) => event.source === 'request').map((event) => [event.push_id, event.request_id])).toEqual(Array(5).fill([null, Number(requestId)]));
    expect(events.filter((event) => event.source !== 'request').every((event) => event.request_id === null)).toBe(true);
    expect(events[4]).toMatchObject({ ip: '127.0.0.1', user_agent: 'agent/1', referrer: '' });
    expect(events[11]).toMatchObject({ user_id: Number(ownerId), email: 'owner@example.com', administrator: 'root@example.com', ip: '127.0.0.1', detail: { by: 'admin', admin: 'root@example.com' } });
    // As many as the two logs hold: one line per entry written.
    const [{ n: entries }] = await app.query<{ n: number }>('SELECT COUNT(*) AS n FROM audit_entries');
    const [{ n: requestEntries }] = await app.query<{ n: number }>('SELECT COUNT(*) AS n FROM request_audit_entries');
    const [{ n: securityEvents }] = await app.query<{ n: number }>('SELECT COUNT(*) AS n FROM security_events');
    expect(events.length).toBe(Number(entries) + Number(requestEntries) + Number(securityEvents));
    const all = lines.join('\n');
    for (const secret of ['stdout secret', 'stdout passphrase', 'stdout note', 'stdout name', push.url_token, ownerToken, 'stdout request', 'stdout answer', requestToken]) {
      expect(all).not.toContain(secret);
    }
  });
});
