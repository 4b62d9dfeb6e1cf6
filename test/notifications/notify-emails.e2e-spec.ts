import { DAY_MS } from '@app/common';
import { NotificationWorker } from '@app/notifications';
import { ApiClient, client, rawRequest, request } from '../support/http';
import { closedSmtpPort, Mailpit, startMailpit } from '../support/mailpit';
import { startMailingTestApp, startTestApp, TestApp } from '../support/test-app';

const PAYLOAD = 'the-secret-payload-7f3a';
const PASSPHRASE = 'the-passphrase-91c2';
const MESSAGE = 'the-request-message-2b7e';
const NOTE = 'the-request-note-6d13';
const MINUTE = 60_000;

describe('notify by email: the link mailed to recipients (the reference\'s feature), of a push or of a secret request', () => {
  let mailpit: Mailpit;
  let app: TestApp;
  let api: ApiClient;
  let owner: Record<string, string>;
  const round = () => app.service(NotificationWorker).round();
  const auditOf = async (token: string) => (await api.get(`/api/v2/pushes/${token}/audit`, owner)).body.logs as Record<string, any>[];
  const emailSends = async (token: string) => (await auditOf(token)).filter((entry) => entry.kind === 'creation_email_send').map((entry) => entry.notify_by_email);

  beforeAll(async () => {
    mailpit = await startMailpit();
  });
  afterAll(() => mailpit.stop());

  beforeEach(async () => {
    await mailpit.deleteAll();
    app = await startMailingTestApp({ ...mailpit.env, PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: '8' });
    api = client(app.baseUrl);
    owner = { authorization: `Bearer ${await app.createUser('owner@example.com')}` };
  });
  afterEach(() => app.close({ drop: true }));

  it('says email_auto_dispatch is on exactly when mail is configured (with a base for its links) and enabled', async () => {
    expect((await api.get('/api/v2/version')).body.features.pushes.email_auto_dispatch).toBe(true);
    for (const env of [{}, mailpit.env, { ...mailpit.env, PWP__HOST_DOMAIN: 'pwpush.example.com', PWP__NOTIFY_BY_EMAIL__ENABLED: 'false' }]) {
      const other = await startTestApp(env);
      try {
        expect((await client(other.baseUrl).get('/api/v2/version')).body.features.pushes.email_auto_dispatch).toBe(false);
      } finally {
        await other.close({ drop: true });
      }
    }
  });

  it('mails the link, one mail per recipient, never the payload or passphrase; the audit reports pending, then completed', async () => {
    const created = await api.post('/api/v2/pushes', { push: { payload: PAYLOAD, passphrase: PASSPHRASE, notify_emails_to: 'alice@example.com, Bob@Example.org,bob@example.org', notify_emails_to_locale: 'de' } }, owner);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ notify_emails_to: 'alice@example.com,bob@example.org', notify_emails_to_locale: 'de' });
    const token = created.body.url_token as string;
    expect((await auditOf(token)).map((entry) => entry.kind)).toEqual(['creation', 'creation_email_send']);
    expect(await emailSends(token)).toEqual([{ recipients: 'alice@example.com,bob@example.org', locale: 'de', status: 'pending', successful_sends: '', proceed_at: null }]);

    expect(await round()).toMatchObject({ dispatched: 1, delivered: 1 });
    const arrived = await mailpit.waitForMessages(2);
    expect(arrived.map((mail) => mail.To.map((to) => to.Address))).toEqual(expect.arrayContaining([['alice@example.com'], ['bob@example.org']]));
    for (const summary of arrived) {
      const mail = await mailpit.message(summary.ID);
      expect(mail.Text).toContain(created.body.html_url);
      expect(mail.HTML).toContain(created.body.html_url);
      expect(mail.Text).toContain('owner@example.com');
      for (const secret of [PAYLOAD, PASSPHRASE]) expect(`${mail.Text}${mail.HTML}${JSON.stringify(mail.headers)}`).not.toContain(secret);
    }
    const [sent] = await emailSends(token);
    expect(sent).toMatchObject({ status: 'completed', successful_sends: 'alice@example.com,bob@example.org' });
    expect(sent.error_message).toBeUndefined();
    expect(Date.parse(sent.proceed_at)).toBeGreaterThan(0);
  });

  it("builds the mail's link on the reference's PWP__HOST_DOMAIN when it is set", async () => {
    const hosted = await startTestApp({ ...mailpit.env, PWP__HOST_DOMAIN: 'pwpush.example.com' }, app.database);
    try {
      const push = await client(hosted.baseUrl).createPush({ payload: PAYLOAD, notify_emails_to: 'a@example.com', retrieval_step: false }, owner);
      await hosted.service(NotificationWorker).round();
      const [summary] = await mailpit.waitForMessages(1);
      expect((await mailpit.message(summary.ID)).Text).toContain(`https://pwpush.example.com/p/${push.url_token}`);
    } finally {
      await hosted.close();
    }
  });

  it("never takes a mailed link's host from the request: without PWP__HOST_DOMAIN or PWP__OVERRIDE_BASE_URL nothing is mailed", async () => {
    const spoofed = (on: TestApp, authorization: string) =>
      rawRequest(
        new URL('/api/v2/pushes', on.baseUrl),
        { method: 'POST', headers: { host: 'login-corp.evil.example', authorization, 'content-type': 'application/json' } },
        JSON.stringify({ push: { payload: PAYLOAD, notify_emails_to: 'victim@example.com', retrieval_step: false } }),
      );
    // With a configured base, the mail names it whatever Host the request came with.
    const created = await spoofed(app, owner.authorization);
    expect(created.status).toBe(201);
    await round();
    const [summary] = await mailpit.waitForMessages(1);
    const mail = await mailpit.message(summary.ID);
    expect(mail.Text).toContain(`${app.baseUrl}/p/${created.body.url_token as string}`);
    expect(`${mail.Text}${mail.HTML}`).not.toContain('evil.example');

    const unhosted = await startTestApp(mailpit.env, app.database);
    try {
      const refused = await spoofed(unhosted, owner.authorization);
      expect(refused).toMatchObject({ status: 422, body: { errors: { notify_emails_to: ['are not available'] } } });
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM outbox'))[0].n)).toBe(1);
    } finally {
      await unhosted.close();
    }
  });

  it("refuses with the reference's messages: anonymous creators, bad lists and locales, and no mail on the instance", async () => {
    const refused = async (push: Record<string, unknown>, headers?: Record<string, string>, on = api) => {
      const answer = await on.post('/api/v2/pushes', { push: { payload: 'x', ...push } }, headers);
      expect(answer.status).toBe(422);
      return answer.body.errors as Record<string, string[]>;
    };
    expect(await refused({ notify_emails_to: 'a@example.com', notify_emails_to_locale: 'en' })).toEqual({
      notify_emails_to: ['are not allowed for unknown users'],
      notify_emails_to_locale: ['is not allowed for unknown users'],
    });
    expect(await refused({ notify_emails_to: 'a@example.com,' }, owner)).toEqual({ notify_emails_to: ['has commas used in the wrong way'] });
    expect(await refused({ notify_emails_to: '1@x.io,2@x.io,3@x.io,4@x.io,5@x.io,6@x.io' }, owner)).toEqual({ notify_emails_to: ['contains more than 5 email(s)'] });
    expect(await refused({ notify_emails_to: 'not-an-address' }, owner)).toEqual({ notify_emails_to: ['contains invalid email(s)'] });
    expect(await refused({ notify_emails_to: 'a@example.com', notify_emails_to_locale: 'xx' }, owner)).toEqual({ notify_emails_to_locale: ['is not included in the list'] });
    // A locale alone mails nobody, as in the reference.
    expect((await api.post('/api/v2/pushes', { push: { payload: 'x', notify_emails_to_locale: 'fr' } }, owner)).status).toBe(201);
    expect(Number((await app.query('SELECT COUNT(*) AS n FROM outbox'))[0].n)).toBe(0);
    await app.query('DELETE FROM pushes');

    const withoutMail = await startTestApp({});
    try {
      const token = { authorization: `Bearer ${await withoutMail.createUser('someone@example.com')}` };
      expect(await refused({ notify_emails_to: 'a@example.com' }, token, client(withoutMail.baseUrl))).toEqual({ notify_emails_to: ['are not available'] });
    } finally {
      await withoutMail.close({ drop: true });
    }
    expect(Number((await app.query('SELECT COUNT(*) AS n FROM pushes'))[0].n)).toBe(0);
  });

  it('sends more later to the owner only, at most 5 recipients per push over all sends', async () => {
    const push = await api.createPush({ payload: PAYLOAD, notify_emails_to: 'a@example.com,b@example.com' }, owner);
    const more = (json: unknown, headers = owner) => api.post(`/api/v2/pushes/${push.url_token}/notify_emails`, json, headers);

    expect((await more({ notify_emails_to: 'c@example.com' }, {})).status).toBe(401);
    const other = { authorization: `Bearer ${await app.createUser('other@example.com')}` };
    expect(await more({ notify_emails_to: 'c@example.com' }, other)).toMatchObject({ status: 403, body: { error: "That push doesn't belong to you." } });
    expect((await api.post('/api/v2/pushes/no-such-token/notify_emails', { notify_emails_to: 'c@example.com' }, owner)).status).toBe(404);
    expect(await more({})).toMatchObject({ status: 422, body: { errors: { notify_emails_to: ["can't be blank"] } } });

    expect(await more({ notify_emails_to: 'c@example.com,d@example.com' })).toMatchObject({ status: 201, body: { message: 'Recipient(s) are added to the queue to be sent.' } });
    expect(await more({ notify_emails_to: 'e@example.com,f@example.com' })).toMatchObject({
      status: 422,
      body: { errors: { base: ['You can notify up to 5 email(s) and you have already sent emails to 4 recipients'] } },
    });
    await round();
    await mailpit.waitForMessages(4);
    expect((await emailSends(push.url_token)).map((send) => [send.recipients, send.status])).toEqual([
      ['a@example.com,b@example.com', 'completed'],
      ['c@example.com,d@example.com', 'completed'],
    ]);
  });

  it('holds each user to the daily limit and to 5 requests a minute', async () => {
    const push = await api.createPush({ payload: 'x', notify_emails_to: '1@x.io,2@x.io,3@x.io,4@x.io,5@x.io' }, owner);
    const second = await api.createPush({ payload: 'y', notify_emails_to: '6@x.io,7@x.io,8@x.io' }, owner);
    // 8 mails today: the limit (8) is reached.
    const third = await api.post('/api/v2/pushes', { push: { payload: 'z', notify_emails_to: '9@x.io' } }, owner);
    expect(third).toMatchObject({ status: 422, body: { errors: { base: ['The maximum number of emails has been reached for today'] } } });
    app.clock.advance(DAY_MS);
    expect((await api.post('/api/v2/pushes', { push: { payload: 'z', notify_emails_to: '9@x.io' } }, owner)).status).toBe(201);

    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api.post(`/api/v2/pushes/${second.url_token}/notify_emails`, { notify_emails_to: `n${i}@x.io` }, owner)).status);
    // Two fit (5 recipients on the push), three more are refused for the push's cap, the sixth for the rate.
    expect(statuses).toEqual([201, 201, 422, 422, 422, 429]);
    const limited = await api.post(`/api/v2/pushes/${push.url_token}/notify_emails`, { notify_emails_to: 'late@x.io' }, owner);
    expect(limited).toMatchObject({ status: 429, body: { error: 'Too many email notification requests. Please try again in a minute.' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts the recipients a request adds against the daily limit: 5 new against a limit of 3 is refused, and nothing is written', async () => {
    const strict = await startMailingTestApp({ ...mailpit.env, PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT: '3' }, app.database);
    try {
      const strictApi = client(strict.baseUrl);
      const refused = await strictApi.post('/api/v2/pushes', { push: { payload: 'x', notify_emails_to: '1@x.io,2@x.io,3@x.io,4@x.io,5@x.io' } }, owner);
      expect(refused).toMatchObject({ status: 422, body: { errors: { base: ['The maximum number of emails has been reached for today'] } } });
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM pushes'))[0].n)).toBe(0);
      const push = await strictApi.createPush({ payload: 'y', notify_emails_to: '1@x.io,2@x.io' }, owner);
      // 2 sent today: 2 more would make 4.
      const more = await strictApi.post(`/api/v2/pushes/${push.url_token}/notify_emails`, { notify_emails_to: '3@x.io,4@x.io' }, owner);
      expect(more).toMatchObject({ status: 422, body: { errors: { base: ['The maximum number of emails has been reached for today'] } } });
      expect(await strictApi.post(`/api/v2/pushes/${push.url_token}/notify_emails`, { notify_emails_to: '3@x.io' }, owner)).toMatchObject({ status: 201 });
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM outbox'))[0].n)).toBe(2);
      expect((await emailSends(push.url_token)).map((send) => send.recipients)).toEqual(['1@x.io,2@x.io', '3@x.io']);
    } finally {
      await strict.close();
    }
  });

  it("ignores notify_emails_to on API v1's create, as the reference's v1 (which never mails)", async () => {
    const created = await api.post('/p.json', { password: { payload: PAYLOAD, notify_emails_to: 'a@example.com', notify_emails_to_locale: 'de' } }, owner);
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('notify_emails_to');
    expect((await auditOf(created.body.url_token as string)).map((entry) => entry.kind)).toEqual(['creation']);
    expect(Number((await app.query('SELECT COUNT(*) AS n FROM outbox'))[0].n)).toBe(0);
  });

  it('retries while SMTP is down, then reports failed; the push itself is unaffected', async () => {
    const down = await startMailingTestApp({ ...mailpit.env, PWP__MAIL__SMTP_PORT: String(await closedSmtpPort()), PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: '3600' }, app.database);
    try {
      const downApi = client(down.baseUrl);
      const push = await downApi.createPush({ payload: PAYLOAD, notify_emails_to: 'a@example.com' }, owner);
      const worker = down.service(NotificationWorker);
      expect(await worker.round()).toMatchObject({ dispatched: 1, retried: 1 });
      const audit = async () => ((await downApi.get(`/api/v2/pushes/${push.url_token}/audit`, owner)).body.logs as any[]).find((entry) => entry.kind === 'creation_email_send').notify_by_email;
      expect(await audit()).toMatchObject({ status: 'processing', successful_sends: '', proceed_at: null });
      let dead = 0;
      for (let i = 0; i < 30 && dead === 0; i++) {
        down.clock.advance(10 * MINUTE);
        dead = (await worker.round()).dead;
      }
      expect(dead).toBe(1);
      expect(await audit()).toMatchObject({ status: 'failed', successful_sends: '', error_message: 'No emails were sent successfully.' });
      expect((await downApi.get(`/api/v2/pushes/${push.url_token}`)).body).toMatchObject({ payload: PAYLOAD });
      expect(await mailpit.messages()).toEqual([]);
    } finally {
      await down.close();
    }
  });

  it('reports partially_failed when some recipients could never be sent to', async () => {
    const picky = await startMailpit({ allowedRecipients: '^alice@' });
    const partial = await startMailingTestApp({ ...picky.env, PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: '3600' }, app.database);
    try {
      const partialApi = client(partial.baseUrl);
      const push = await partialApi.createPush({ payload: PAYLOAD, notify_emails_to: 'alice@example.com,bob@example.com' }, owner);
      const worker = partial.service(NotificationWorker);
      expect(await worker.round()).toMatchObject({ dispatched: 1, retried: 1 });
      const audit = async () => ((await partialApi.get(`/api/v2/pushes/${push.url_token}/audit`, owner)).body.logs as any[]).find((entry) => entry.kind === 'creation_email_send').notify_by_email;
      expect(await audit()).toMatchObject({ status: 'processing', successful_sends: 'alice@example.com' });
      let dead = 0;
      for (let i = 0; i < 30 && dead === 0; i++) {
        partial.clock.advance(10 * MINUTE);
        dead = (await worker.round()).dead;
      }
      expect(dead).toBe(1);
      expect(await audit()).toMatchObject({ status: 'partially_failed', successful_sends: 'alice@example.com', error_message: 'Some emails could not be sent.' });
      // Alice got hers once: the retries went to Bob alone.
      expect((await picky.messages()).map((mail) => mail.To.map((to) => to.Address))).toEqual([['alice@example.com']]);
    } finally {
      await partial.close();
      await picky.stop();
    }
  });

  it("refuses mailto: an address that only Unicode case folding takes for the owner's (a Kelvin sign for the k)", async () => {
    const kate = { authorization: `Bearer ${await app.createUser('kate@example.com')}` };
    const refused = await api.post('/api/v2/webhooks', { url: 'mailto:\u212Aate@example.com', events: ['push.viewed'] }, kate);
    expect(refused).toMatchObject({ status: 422, body: { errors: { url: [expect.stringContaining("your own account's address")] } } });
    expect((await api.post('/api/v2/webhooks', { url: 'mailto:KATE@example.com', events: ['push.viewed'] }, kate)).status).toBe(201);
  });

  it('mails its owner the events of their pushes when they register mailto: themselves', async () => {
    expect((await api.post('/api/v2/webhooks', { url: 'mailto:owner@example.com', events: ['push.viewed', 'push.expired'] }, owner)).status).toBe(201);
    const push = await api.createPush({ payload: PAYLOAD, name: 'Door code', expire_after_views: 1 }, owner);
    await api.get(`/api/v2/pushes/${push.url_token}`);
    expect(await round()).toMatchObject({ dispatched: 3, delivered: 2 });
    const arrived = await mailpit.waitForMessages(2);
    expect(arrived.map((mail) => mail.Subject).sort()).toEqual(['Your push “Door code” has expired', 'Your push “Door code” was viewed']);
    for (const summary of arrived) {
      const mail = await mailpit.message(summary.ID);
      expect(mail.To.map((to) => to.Address)).toEqual(['owner@example.com']);
      expect(`${mail.Text}${mail.HTML}`).not.toContain(PAYLOAD);
      expect(`${mail.Text}${mail.HTML}`).not.toContain(push.url_token);
    }
  });

  describe("for a secret request: its link mailed to those who are to answer it, by the same rules", () => {
    const createRequest = (fields: Record<string, unknown>, headers = owner, on = api) => on.post('/api/v2/requests', { request: { request: MESSAGE, ...fields } }, headers);
    const requestsCount = async () => Number((await app.query('SELECT COUNT(*) AS n FROM requests'))[0].n);

    it("mails each recipient the request's link in their language, never the message, note or passphrase; the answer echoes the list", async () => {
      const created = await createRequest({ note: NOTE, passphrase: PASSPHRASE, notify_emails_to: 'alice@example.com, Bob@Example.org,bob@example.org', notify_emails_to_locale: 'de' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ notify_emails_to: 'alice@example.com,bob@example.org', notify_emails_to_locale: 'de' });
      const token = created.body.url_token as string;
      // Its mail is no entry of the request's log (whose kinds are the contract's).
      expect((await api.get(`/api/v2/requests/${token}/audit`, owner)).body.logs.map((entry: Record<string, unknown>) => entry.kind)).toEqual(['creation']);
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
        expect(mail.Text).toContain('owner@example.com bittet Sie, ein Geheimnis zu senden');
        expect(mail.Text).toContain('Passphrase');
        for (const secret of [MESSAGE, NOTE, PASSPHRASE]) expect(`${mail.Subject}${mail.Text}${mail.HTML}${JSON.stringify(mail.headers)}`).not.toContain(secret);
      }
      // The link works: the responder answers through it, and nothing more is mailed to the recipients.
      expect((await request(app.baseUrl, 'PATCH', `/api/v2/requests/${token}/respond`, { json: { request: { response: 'the answer' } }, headers: { 'x-passphrase': PASSPHRASE } })).status).toBe(200);
      await round();
      expect((await mailpit.messages()).filter((mail) => mail.To.some((to) => to.Address !== 'owner@example.com'))).toHaveLength(2);
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
      const refused = async (fields: Record<string, unknown>, on = api) => {
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
      expect((await createRequest({ notify_emails_to: '1@x.io,2@x.io,3@x.io,4@x.io,5@x.io' })).status).toBe(201);
      expect((await api.post('/api/v2/pushes', { push: { payload: 'x', notify_emails_to: '6@x.io,7@x.io' } }, owner)).status).toBe(201);
      // 7 mails today: 2 more would pass the limit (8), 1 more fits.
      const over = await createRequest({ notify_emails_to: '8@x.io,9@x.io' });
      expect(over).toMatchObject({ status: 422, body: { errors: { base: ['The maximum number of emails has been reached for today'] } } });
      expect(await requestsCount()).toBe(1);
      expect((await createRequest({ notify_emails_to: '8@x.io' })).status).toBe(201);
      expect(await requestsCount()).toBe(2);
      await round();
      expect((await mailpit.waitForMessages(8)).map((mail) => mail.To[0].Address).sort()).toEqual(['1@x.io', '2@x.io', '3@x.io', '4@x.io', '5@x.io', '6@x.io', '7@x.io', '8@x.io']);
    });
  });
});
