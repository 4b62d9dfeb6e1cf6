import { client } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

describe('concurrent retrievals', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close({ drop: true }));

  it.each([1, 3])('return the payload exactly %i time(s) out of 40 simultaneous requests', async (views) => {
    const api = client(app.baseUrl);
    const { url_token } = await api.createPush({ payload: `race-${views}`, expire_after_views: views });

    const results = await Promise.all(Array.from({ length: 40 }, () => api.get(`/api/v2/pushes/${url_token}`)));

    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    const served = results.filter((r) => r.body.payload === `race-${views}`);
    expect(served).toHaveLength(views);
    // Each served view saw a distinct count; none of them claims a view that did not happen.
    expect(served.map((r) => r.body.views_remaining).sort()).toEqual(Array.from({ length: views }, (_, i) => i));
    expect(results.filter((r) => r.body.payload === null && r.body.expired === true)).toHaveLength(40 - views);

    const audit: { kind: string; n: number }[] = await app.query(
      'SELECT a.kind AS kind, COUNT(*) AS n FROM audit_entries a JOIN pushes p ON p.id = a.push_id WHERE p.url_token = ? GROUP BY a.kind ORDER BY a.kind',
      [url_token],
    );
    expect(audit.map((row) => [row.kind, Number(row.n)])).toEqual([
      ['creation', 1],
      ['failed_view', 40 - views],
      ['view', views],
    ]);
  });

  it('passphrase-protected pushes hold the same guarantee', async () => {
    const api = client(app.baseUrl);
    const { url_token } = await api.createPush({ payload: 'guarded-race', passphrase: 'pw', expire_after_views: 2 });
    const results = await Promise.all(Array.from({ length: 20 }, () => api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': 'pw' })));
    expect(results.filter((r) => r.body.payload === 'guarded-race')).toHaveLength(2);
  });
});

describe('concurrent link mails', () => {
  let app: TestApp;

  beforeAll(async () => {
    // Mail configured (nothing is sent: the tests run no worker), 7 recipients a day.
    app = await startTestApp({
      PWP__MAIL__SMTP_ADDRESS: '127.0.0.1',
      PWP__MAIL__MAILER_SENDER: 'pwpush@example.com',
      PWP__HOST_DOMAIN: 'pwpush.example.com',
      PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: '7',
    });
  });
  afterAll(() => app.close({ drop: true }));

  it('never queue more recipients than the daily limit: 5 simultaneous requests of 2 against a limit of 7', async () => {
    const api = client(app.baseUrl);
    const owner = { authorization: `Bearer ${await app.createUser('racer@example.com')}` };
    const push = await api.createPush({ payload: 'later' }, owner);
    const requests = [
      ...Array.from({ length: 3 }, (_, i) => api.post('/api/v2/pushes', { push: { payload: `race-${i}`, notify_emails_to: `a${i}@x.io,b${i}@x.io` } }, owner)),
      ...Array.from({ length: 2 }, (_, i) => api.post(`/api/v2/pushes/${push.url_token}/notify_emails`, { notify_emails_to: `c${i}@x.io,d${i}@x.io` }, owner)),
    ];

    const statuses = (await Promise.all(requests)).map((answer) => answer.status);

    // Each request is counted in the statement that records it: 3 fit (6), a fourth would make 8.
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 422)).toHaveLength(2);
    const [{ queued, mails }] = await app.query<{ queued: unknown; mails: unknown }>('SELECT SUM(email_count) AS queued, COUNT(*) AS mails FROM outbox');
    expect([Number(queued), Number(mails)]).toEqual([6, 3]);
    const audited = await app.query<{ n: unknown }>("SELECT COUNT(*) AS n FROM audit_entries WHERE kind = 'creation_email_send'");
    expect(Number(audited[0].n)).toBe(3);
  });
});
