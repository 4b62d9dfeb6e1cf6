import { NotificationWorker } from '@app/notifications';
import { ApiClient, client, request } from '../support/http';
import { Mailpit, startMailpit } from '../support/mailpit';
import { startMailingTestApp, startTestApp, TestApp } from '../support/test-app';

const MESSAGE = 'Shrike-Message-2b7e90c4';
const NOTE = 'Wagtail-Note-6d13f8a2';
const PASSPHRASE = 'Dunlin-Passphrase-e45c017b';

type Json = Record<string, any>;

describe("secret requests' notify_emails_to: the request's link mailed to those who are to answer it (the push rules)", () => {
  let mailpit: Mailpit;
  let app: TestApp;
  let api: ApiClient;
  let owner: Record<string, string>;
  const round = () => app.service(NotificationWorker).round();
  const createRequest = (fields: Json, headers = owner, on = api) => on.post('/api/v2/requests', { request: { request: MESSAGE, ...fields } }, headers);
  const requestsCount = async () => Number((await app.query('SELECT COUNT(*) AS n FROM requests'))[0].n);

  beforeAll(async () => {
    mailpit = await startMailpit();
  });
  afterAll(() => mailpit.stop());

  beforeEach(async () => {
    await mailpit.deleteAll();
    app = await startMailingTestApp({ ...mailpit.env, PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: '4' });
    api = client(app.baseUrl);
    owner = { authorization: `Bearer ${await app.createUser('requester@example.com')}` };
  });
  afterEach(() => app.close({ drop: true }));

  it("mails each recipient the request's link in their language, never the message, note or passphrase; the answer echoes the list", async () => {
    const created = await createRequest({ note: NOTE, passphrase: PASSPHRASE, notify_emails_to: 'alice@example.com, Bob@Example.org,bob@example.org', notify_emails_to_locale: 'de' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ notify_emails_to: 'alice@example.com,bob@example.org', notify_emails_to_locale: 'de' });
    const token = created.body.url_token as string;
    // Its mail is no entry of the request's log (whose kinds are the contract's).
    expect((await api.get(`/api/v2/requests/${token}/audit`, owner)).body.logs.map((entry: Json) => entry.kind)).toEqual(['creation']);
    // The read of the request (its retrieval by the owner) does not echo it: create only.
    expect((await api.get(`/api/v2/requests/${token}`, owner)).body.notify_emails_to).toBeUndefined();

    expect(await round()).toMatchObject({ dispatched: 1, delivered: 1 });
    const arrived = await mailpit.waitForMessages(2);
    expect(arrived.map((mail) => mail.To.map((to) => to.Address))).toEqual(expect.arrayContaining([['alice@example.com'], ['bob@example.org']]));
    const link = `${app.baseUrl}/requests/${token}?locale=de`;
    expect(created.body.html_url).toBe(`${app.baseUrl}/requests/${token}`);
    for (const summary of arrived) {
      expect(summary.Subject).toBe('Sie werden um ein Geheimnis gebeten');
      const mail = await mailpit.message(summary.ID);
      expect(mail.Text).toContain(link);
      expect(mail.HTML).toContain(link.replace('=', '&#x3D;'));
      expect(mail.Text).toContain('requester@example.com bittet Sie, ein Geheimnis zu senden');
      expect(mail.Text).toContain('Passphrase');
      for (const secret of [MESSAGE, NOTE, PASSPHRASE]) expect(`${mail.Subject}${mail.Text}${mail.HTML}${JSON.stringify(mail.headers)}`).not.toContain(secret);
    }
    // The link works: the responder answers through it, and nothing more is mailed to the recipients.
    expect((await request(app.baseUrl, 'PATCH', `/api/v2/requests/${token}/respond`, { json: { request: { response: 'the answer' } }, headers: { 'x-passphrase': PASSPHRASE } })).status).toBe(200);
    await round();
    expect((await mailpit.messages()).filter((mail) => mail.To.some((to) => to.Address !== 'requester@example.com'))).toHaveLength(2);
  });

  it('takes notify_emails_to in a multipart create too, beside the requester\'s files; without it nothing is mailed', async () => {
    const form = new FormData();
    form.append('request[request]', MESSAGE);
    form.append('request[notify_emails_to]', 'carol@example.com');
    form.append('request[files][]', new Blob(['a file for the responder'], { type: 'text/plain' }), 'brief.txt');
    const created = await request(app.baseUrl, 'POST', '/api/v2/requests', { body: form, headers: owner });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ notify_emails_to: 'carol@example.com', notify_emails_to_locale: null });
    const silent = await createRequest({});
    expect(silent.status).toBe(201);
    expect(silent.body.notify_emails_to).toBeUndefined();

    await round();
    const [summary] = await mailpit.waitForMessages(1);
    expect(summary).toMatchObject({ To: [{ Address: 'carol@example.com' }], Subject: 'You are asked for a secret' });
    const mail = await mailpit.message(summary.ID);
    expect(mail.Text).toContain(`${app.baseUrl}/requests/${created.body.url_token as string}`);
    expect(mail.Text).not.toContain('brief.txt');
    expect(await mailpit.messages()).toHaveLength(1);
  });

  it("refuses with the push rules' messages, and a refused create leaves no request", async () => {
    const refused = async (fields: Json, on = api) => {
      const answer = await createRequest(fields, owner, on);
      expect(answer.status).toBe(422);
      return answer.body.errors as Record<string, string[]>;
    };
    expect(await refused({ notify_emails_to: 'a@example.com,' })).toEqual({ notify_emails_to: ['has commas used in the wrong way'] });
    expect(await refused({ notify_emails_to: '1@x.io,2@x.io,3@x.io,4@x.io,5@x.io,6@x.io' })).toEqual({ notify_emails_to: ['contains more than 5 email(s)'] });
    expect(await refused({ notify_emails_to: 'not-an-address' })).toEqual({ notify_emails_to: ['contains invalid email(s)'] });
    expect(await refused({ notify_emails_to: 'a@example.com', notify_emails_to_locale: 'xx' })).toEqual({ notify_emails_to_locale: ['is not included in the list'] });
    // Checked with the request's own rules, in one answer.
    expect(await refused({ request: ' ', notify_emails_to: 'not-an-address' })).toEqual({ request: ['Request is required.'], notify_emails_to: ['contains invalid email(s)'] });

    // Without a configured base for links (PWP__HOST_DOMAIN or PWP__OVERRIDE_BASE_URL), or with link mails off, mail is not available.
    for (const env of [mailpit.env, { ...mailpit.env, PWP__HOST_DOMAIN: 'pwpush.example.com', PWP__NOTIFY_BY_EMAIL__ENABLED: 'false' }]) {
      const other = await startTestApp(env, app.database);
      try {
        expect(await refused({ notify_emails_to: 'a@example.com', notify_emails_to_locale: 'de' }, client(other.baseUrl))).toEqual({
          notify_emails_to: ['are not available'],
          notify_emails_to_locale: ['is not available'],
        });
      } finally {
        await other.close();
      }
    }
    expect(await requestsCount()).toBe(0);
    expect(Number((await app.query('SELECT COUNT(*) AS n FROM outbox'))[0].n)).toBe(0);
  });

  it("counts the recipients against the requester's daily limit, shared with their pushes; a create past it writes nothing", async () => {
    expect((await createRequest({ notify_emails_to: 'a@example.com,b@example.com' })).status).toBe(201);
    expect((await api.post('/api/v2/pushes', { push: { payload: 'x', notify_emails_to: 'c@example.com' } }, owner)).status).toBe(201);
    const over = await createRequest({ notify_emails_to: 'd@example.com,e@example.com' });
    expect(over).toMatchObject({ status: 422, body: { errors: { base: ['The maximum number of emails has been reached for today'] } } });
    expect(await requestsCount()).toBe(1);
    // One more fits the limit of 4.
    expect((await createRequest({ notify_emails_to: 'd@example.com' })).status).toBe(201);
    expect(await requestsCount()).toBe(2);
    await round();
    expect((await mailpit.waitForMessages(4)).map((mail) => mail.To[0].Address).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com']);
  });
});
