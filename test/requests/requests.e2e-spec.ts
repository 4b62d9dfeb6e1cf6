import { Webhook } from 'standardwebhooks';
import { NotificationWorker } from '@app/notifications';
import { RequestsSweepService } from '@app/requests';
import { sha256 } from '../support/helpers';
import { client, request } from '../support/http';
import { StoredBlobs } from '../support/blob-storage';
import { startMailpit } from '../support/mailpit';
import { startMailingTestApp, startTestApp, TestApp } from '../support/test-app';
import { startWebhookReceiver } from '../support/webhook-receiver';

const MESSAGE = 'Heron-Message-4d1c8e07';
const NOTE = 'Ibis-Note-93b2a6f1';
const ANSWER = 'Kestrel-Answer-0fa5d3c9';
const PASSPHRASE = 'Osprey-Passphrase-77e1b2';
const REQUESTER_FILE = 'Plover-RequesterFile-5a9c0d13';
const RESPONDER_FILE = 'Avocet-ResponderFile-c28e4f60';
const DAY_MS = 24 * 60 * 60 * 1000;

type Json = Record<string, any>;

/** Every cell of every row of every table, as text in several encodings, for a plaintext search (as test/security's at-rest test). */
async function dumpDatabase(app: TestApp): Promise<string> {
  const parts: string[] = [];
  for (const table of app.dataSource.entityMetadatas.map((m) => m.tableName)) {
    for (const row of await app.query<Record<string, unknown>>(`SELECT * FROM ${table}`)) {
      for (const value of Object.values(row)) {
        if (Buffer.isBuffer(value)) parts.push(value.toString('utf8'), value.toString('latin1'), value.toString('base64'), value.toString('hex'));
        else parts.push(String(value));
      }
    }
  }
  return parts.join('\n');
}

function expectNoPlaintext(haystack: string, secrets: string[]): void {
  for (const secret of secrets) {
    expect(haystack).not.toContain(secret);
    expect(haystack).not.toContain(Buffer.from(secret).toString('base64'));
    expect(haystack).not.toContain(Buffer.from(secret).toString('hex'));
  }
}

describe('secret requests (/api/v2/requests)', () => {
  let app: TestApp;
  let owner: Record<string, string>;
  let other: Record<string, string>;
  const api = () => client(app.baseUrl);
  const sweep = () => app.service(RequestsSweepService).sweep();

  const create = async (fields: Json = {}) => {
    const answer = await api().post('/api/v2/requests', { request: { request: MESSAGE, ...fields } }, owner);
    if (answer.status !== 201) throw new Error(`create failed: ${answer.status} ${answer.text}`);
    return answer.body as Json;
  };
  const respond = (urlToken: string, body: Json, headers: Record<string, string> = {}) =>
    request(app.baseUrl, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { json: body, headers });
  const multipart = (method: string, path: string, fields: Record<string, string>, files: [string, string][], headers: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const [name, content] of files) form.append('request[files][]', new Blob([content], { type: 'text/plain' }), name);
    return request(app.baseUrl, method, path, { body: form, headers });
  };
  const row = async (urlToken: string) => (await app.query('SELECT * FROM requests WHERE url_token = ?', [urlToken]))[0] as Json;
  const filesOf = async (urlToken: string) =>
    Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments f JOIN requests r ON r.id = f.request_id WHERE r.url_token = ?', [urlToken]))[0].n);
  const auditKinds = async (urlToken: string) => (await api().get(`/api/v2/requests/${urlToken}/audit`, owner)).body.logs.map((entry: Json) => entry.kind);

  describe('with requests on', () => {
    beforeAll(async () => {
      app = await startTestApp({ PWP__PURGE_AFTER: '7 days' });
      owner = { authorization: `Bearer ${await app.createUser('requester@example.com')}` };
      other = { authorization: `Bearer ${await app.createUser('someone-else@example.com')}` };
    });
    afterAll(() => app.close({ drop: true }));

    it('creates a request for its owner only, with the contract object, defaults and refusals', async () => {
      expect((await api().post('/api/v2/requests', { request: { request: MESSAGE } })).status).toBe(401);
      const created = await api().post('/api/v2/requests.json', { request: { request: MESSAGE, name: 'DB password', note: NOTE } }, owner);
      expect(created.status).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      const body = created.body as Json;
      expect(body.url_token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(body).toMatchObject({
        state: 'open',
        request: MESSAGE,
        name: 'DB password',
        note: NOTE,
        close_after_duration: 8,
        days_remaining: 3,
        include_requestor: false,
        response_file_attachments: false,
        retrieval_step: false,
        passphrase_protected: false,
        responded_at: null,
        html_url: `${app.baseUrl}/requests/${body.url_token}`,
        json_url: `${app.baseUrl}/api/v2/requests/${body.url_token}`,
      });
      expect(Date.parse(body.close_after_at) - Date.parse(body.created_at)).toBe(3 * DAY_MS);
      expect((await create({ close_after_duration: '0' })).close_after_at).toBeDefined();
      const quarter = await create({ close_after_duration: 0 });
      expect(Date.parse(quarter.close_after_at) - Date.parse(quarter.created_at)).toBe(15 * 60 * 1000);
      const ninety = await create({ close_after_duration: 17 });
      expect(ninety.days_remaining).toBe(90);

      const missing = await api().post('/api/v2/requests', { request: { name: 'no message' } }, owner);
      expect([missing.status, missing.body.errors]).toEqual([422, { request: ['Request is required.'] }]);
      const both = await api().post('/api/v2/requests', { request: { request: ' ', close_after_duration: 18 } }, owner);
      expect(both.status).toBe(422);
      expect(Object.keys(both.body.errors).sort()).toEqual(['close_after_duration', 'request']);
      const tooLong = await api().post('/api/v2/requests', { request: { request: 'x'.repeat(1_048_577) } }, owner);
      expect(tooLong.status).toBe(422);
      expect((await api().post('/api/v2/requests', { request: {} }, owner)).body).toEqual({ error: 'param is missing or the value is empty or invalid: request' });
    });

    it('takes one answer, publicly, with the passphrase; the owner reads it as often as needed, every read audited', async () => {
      const { url_token } = await create({ passphrase: PASSPHRASE, note: NOTE });
      expect((await api().get(`/api/v2/requests/${url_token}`, owner)).body).toMatchObject({ state: 'open', response: null, files: [], passphrase_protected: true });

      const without = await respond(url_token, { request: { response: ANSWER } });
      expect([without.status, without.body.error]).toEqual([401, 'That passphrase is incorrect.']);
      expect((await respond(url_token, { request: { response: ANSWER } }, { 'x-passphrase': 'wrong' })).status).toBe(401);
      expect((await respond(url_token, { request: {} }, { 'x-passphrase': PASSPHRASE })).status).toBe(400);
      const blank = await respond(url_token, { request: { response: '  ' } }, { 'x-passphrase': PASSPHRASE });
      expect([blank.status, blank.body.errors]).toEqual([422, { response: ['Response is required.'] }]);

      const answered = await request(app.baseUrl, 'PATCH', `/api/v2/requests/${url_token}/respond.json?passphrase=${PASSPHRASE}`, { json: { request: { response: ANSWER } } });
      expect(answered.status).toBe(200);
      expect(answered.body).toMatchObject({ url_token, state: 'ready' });
      expect(answered.text).not.toContain(ANSWER);
      expect(answered.text).not.toContain(MESSAGE);
      const again = await respond(url_token, { request: { response: 'second' } }, { 'x-passphrase': PASSPHRASE });
      expect([again.status, again.body]).toEqual([409, { error: 'This request has already been answered.' }]);

      for (let read = 0; read < 2; read++) {
        const got = await api().get(`/api/v2/requests/${url_token}.json`, owner);
        expect(got.status).toBe(200);
        expect(got.headers.get('cache-control')).toBe('no-store');
        expect(got.body).toMatchObject({ state: 'ready', response: ANSWER, note: NOTE, request: MESSAGE, files: [] });
        expect(got.body.responded_at).not.toBeNull();
      }
      expect((await api().get(`/api/v2/requests/${url_token}`, other)).status).toBe(403);
      expect((await api().get(`/api/v2/requests/${url_token}`)).status).toBe(401);
      expect((await api().get('/api/v2/requests/nosuchtoken', owner)).status).toBe(404);
      expect((await respond('nosuchtoken', { request: { response: ANSWER } })).status).toBe(404);
      expect(await auditKinds(url_token)).toEqual(['creation', 'failed_passphrase', 'failed_passphrase', 'response', 'response_view', 'response_view']);

      const preview = await api().get(`/api/v2/requests/${url_token}/preview`, owner);
      expect(preview.body).toEqual({ url: `${app.baseUrl}/requests/${url_token}` });
      expect((await api().get(`/api/v2/requests/${url_token}/preview`, other)).status).toBe(403);
      expect((await api().get(`/api/v2/requests/${url_token}/audit`, other)).status).toBe(403);
      expect((await api().get(`/api/v2/requests/${url_token}/audit`)).status).toBe(401);
      expect((await api().get(`/api/v2/requests/nosuchtoken/audit`, owner)).status).toBe(404);
    });

    it('keeps the message, note, answer, passphrase and both sides\' files encrypted at rest, and closing by its owner destroys answer and files at once', async () => {
      const blobs = new StoredBlobs(app.settings.files.storage);
      const created = await multipart(
        'POST',
        '/api/v2/requests',
        { 'request[request]': MESSAGE, 'request[note]': NOTE, 'request[passphrase]': PASSPHRASE, 'request[response_file_attachments]': 'true' },
        [['brief.txt', REQUESTER_FILE]],
        owner,
      );
      expect(created.status).toBe(201);
      const urlToken = created.body.url_token as string;
      expect(created.body.response_file_attachments).toBe(true);

      const answered = await multipart('PATCH', `/api/v2/requests/${urlToken}/respond`, { 'request[response]': ANSWER }, [['answer.txt', RESPONDER_FILE]], { 'x-passphrase': PASSPHRASE });
      expect([answered.status, answered.body.state]).toEqual([200, 'ready']);
      expect(await filesOf(urlToken)).toBe(2);

      const dump = await dumpDatabase(app);
      const stored = [...(await blobs.all()).values()].map((blob) => [blob.toString('utf8'), blob.toString('latin1')].join('\n')).join('\n');
      expectNoPlaintext(dump, [MESSAGE, NOTE, ANSWER, PASSPHRASE, 'answer.txt', 'brief.txt']);
      expectNoPlaintext(stored, [REQUESTER_FILE, RESPONDER_FILE]);
      expect((await row(urlToken)).passphrase_hash).toMatch(/^\$argon2id\$/);

      const got = await api().get(`/api/v2/requests/${urlToken}`, owner);
      expect(got.body.files).toEqual([expect.objectContaining({ filename: 'answer.txt', content_type: 'text/plain', size: RESPONDER_FILE.length })]);
      const download = await fetch(got.body.files[0].url);
      expect(download.status).toBe(200);
      expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(RESPONDER_FILE));
      const forged = await fetch(got.body.files[0].url.replace(/files\/./, (m: string) => (m.endsWith('A') ? m.slice(0, -1) + 'B' : m.slice(0, -1) + 'A')));
      expect(forged.status).toBe(404);

      const closed = await api().delete(`/api/v2/requests/${urlToken}`, owner);
      expect([closed.status, closed.body.state, closed.body.days_remaining]).toEqual([200, 'closed', 0]);
      const after = await row(urlToken);
      expect([after.response, after.passphrase_hash, after.state]).toEqual([null, null, 'closed']);
      expect(await filesOf(urlToken)).toBe(0);
      expect((await blobs.all()).size).toBe(0);
      expect((await fetch(got.body.files[0].url)).status).toBe(404);
      expect((await api().get(`/api/v2/requests/${urlToken}`, owner)).body).toMatchObject({ state: 'closed', response: null, files: [] });
      expect((await respond(urlToken, { request: { response: ANSWER } }, { 'x-passphrase': PASSPHRASE })).status).toBe(404);
      expect((await api().delete(`/api/v2/requests/${urlToken}`, owner)).body.state).toBe('closed');
      expect((await api().delete(`/api/v2/requests/${urlToken}`, other)).status).toBe(403);
      expect((await api().delete(`/api/v2/requests/${urlToken}`)).status).toBe(401);
      expect((await auditKinds(urlToken)).filter((kind: string) => kind === 'expire')).toHaveLength(1);
      blobs.close();
    });

    it('refuses files on a request that takes none, and stores nothing of them', async () => {
      const { url_token } = await create();
      const refused = await multipart('PATCH', `/api/v2/requests/${url_token}/respond`, { 'request[response]': ANSWER }, [['x.txt', RESPONDER_FILE]]);
      expect([refused.status, refused.body.errors]).toEqual([422, { files: ['This request does not take files.'] }]);
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments'))[0].n)).toBe(0);
      expect((await row(url_token)).state).toBe('open');
    });

    it('closes by time, lazily and by the sweep, destroying answer and files; the purge deletes closed ones later', async () => {
      const lazy = await create({ close_after_duration: 0, response_file_attachments: true });
      const swept = await create({ close_after_duration: 1, response_file_attachments: true });
      for (const { url_token } of [lazy, swept]) {
        expect((await multipart('PATCH', `/api/v2/requests/${url_token}/respond`, { 'request[response]': ANSWER }, [['a.txt', RESPONDER_FILE]])).status).toBe(200);
      }
      app.clock.advance(16 * 60 * 1000);
      expect((await api().get(`/api/v2/requests/${lazy.url_token}`, owner)).body).toMatchObject({ state: 'closed', response: null, files: [] });
      expect([(await row(lazy.url_token)).response, await filesOf(lazy.url_token)]).toEqual([null, 0]);
      expect((await row(swept.url_token)).state).toBe('ready');

      app.clock.advance(15 * 60 * 1000);
      expect(await sweep()).toMatchObject({ ran: true, closed: expect.any(Number) });
      expect((await row(swept.url_token)).state).toBe('closed');
      expect([(await row(swept.url_token)).response, await filesOf(swept.url_token)]).toEqual([null, 0]);
      expect((await sweep()).closed).toBe(0);

      app.clock.advance(8 * DAY_MS);
      expect((await sweep()).purged).toBeGreaterThan(0);
      expect(await row(swept.url_token)).toBeUndefined();
      expect((await api().get(`/api/v2/requests/${swept.url_token}`, owner)).status).toBe(404);
    });

    it('takes exactly one of many concurrent answers', async () => {
      const { url_token } = await create();
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => respond(url_token, { request: { response: `answer ${i}` } })));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(11);
      const winner = answers.findIndex((answer) => answer.status === 200);
      expect((await api().get(`/api/v2/requests/${url_token}`, owner)).body.response).toBe(`answer ${winner}`);
      expect((await auditKinds(url_token)).filter((kind: string) => kind === 'response')).toHaveLength(1);
    });

    it('lists the owner\'s requests by state, newest first, paged with Link headers', async () => {
      const user = { authorization: `Bearer ${await app.createUser('lists@example.com')}` };
      const made: string[] = [];
      for (let i = 0; i < 51; i++) made.push((await api().post('/api/v2/requests', { request: { request: `list ${i}` } }, user)).body.url_token);
      expect((await respond(made[50], { request: { response: ANSWER } })).status).toBe(200);
      expect((await api().delete(`/api/v2/requests/${made[49]}`, user)).status).toBe(200);

      const active = await api().get('/api/v2/requests/active', user);
      expect(active.body).toHaveLength(50);
      expect(active.body[0].url_token).toBe(made[50]);
      expect(active.headers.get('link')).toBeNull();
      const open = await api().get('/api/v2/requests/open.json', user);
      expect(open.body.map((r: Json) => r.url_token)).toEqual(made.slice(0, 49).reverse());
      expect((await api().get('/api/v2/requests/ready', user)).body.map((r: Json) => r.url_token)).toEqual([made[50]]);
      expect((await api().get('/api/v2/requests/closed', user)).body.map((r: Json) => r.url_token)).toEqual([made[49]]);
      for (let i = 0; i < 2; i++) await api().post('/api/v2/requests', { request: { request: 'more' } }, user);
      const first = await api().get('/api/v2/requests/open', user);
      expect(first.body).toHaveLength(50);
      expect(first.headers.get('link')).toBe(`<${app.baseUrl}/api/v2/requests/open?page=2>; rel="next"`);
      expect((await api().get('/api/v2/requests/open?page=2', user)).body).toHaveLength(1);
      expect((await api().get('/api/v2/requests/open?page=0', user)).status).toBe(400);
      expect((await api().get('/api/v2/requests/active')).status).toBe(401);
      expect((await api().get('/api/v2/requests/active', owner)).body.every((r: Json) => !made.includes(r.url_token))).toBe(true);
    });

    it('changes nothing on HEAD or OPTIONS', async () => {
      const { url_token } = await create({ close_after_duration: 0 });
      expect((await respond(url_token, { request: { response: ANSWER } })).status).toBe(200);
      const before = await row(url_token);
      const kinds = await auditKinds(url_token);
      app.clock.advance(16 * 60 * 1000);
      for (const path of [`/api/v2/requests/${url_token}`, `/api/v2/requests/${url_token}.json`, `/api/v2/requests/${url_token}/audit`, `/api/v2/requests/${url_token}/preview`, '/api/v2/requests/active']) {
        const head = await fetch(`${app.baseUrl}${path}`, { method: 'HEAD', headers: owner });
        expect(head.status).toBe(405);
      }
      for (const path of [`/api/v2/requests/${url_token}`, `/api/v2/requests/${url_token}/respond`, '/api/v2/requests']) {
        const options = await fetch(`${app.baseUrl}${path}`, { method: 'OPTIONS', headers: owner });
        expect(options.status).toBeLessThan(500);
      }
      expect(await row(url_token)).toEqual(before);
      app.clock.advance(-16 * 60 * 1000);
      expect(await auditKinds(url_token)).toEqual(kinds);
    });
  });

  describe('webhooks', () => {
    afterAll(() => app.close({ drop: true }));

    it('tells the owner\'s endpoints of answers and closes (by owner, lazily, by the sweep), signed, each once, never a secret', async () => {
      const receiver = await startWebhookReceiver();
      app = await startTestApp({ PWP__WEBHOOKS__ALLOW_HTTP: 'true', PWP__WEBHOOKS__ALLOWED_HOSTS: '127.0.0.1' });
      owner = { authorization: `Bearer ${await app.createUser('heard@example.com')}` };
      const hook = await api().post('/api/v2/webhooks', { url: receiver.url, events: ['request.responded', 'request.closed'] }, owner);
      expect(hook.status).toBe(201);
      const byOwner = await create({ note: NOTE, passphrase: PASSPHRASE, name: 'Heard' });
      const lazily = await create({ close_after_duration: 0 });
      const bySweep = await create({ close_after_duration: 0 });
      expect((await respond(byOwner.url_token, { request: { response: ANSWER } }, { 'x-passphrase': PASSPHRASE })).status).toBe(200);
      expect((await api().delete(`/api/v2/requests/${byOwner.url_token}`, owner)).status).toBe(200);
      app.clock.advance(16 * 60 * 1000);
      expect((await api().get(`/api/v2/requests/${lazily.url_token}`, owner)).body.state).toBe('closed');
      expect((await sweep()).closed).toBe(1);
      expect((await sweep()).closed).toBe(0);
      // Back to the real time: verifiers refuse signatures timed more than five minutes off their clock.
      app.clock.advance(-16 * 60 * 1000);

      expect(await app.service(NotificationWorker).round()).toMatchObject({ delivered: 4, dead: 0 });
      expect(await app.service(NotificationWorker).round()).toMatchObject({ dispatched: 0, delivered: 0 });
      const verifier = new Webhook(hook.body.secret as string);
      for (const received of receiver.received) {
        expect(() => verifier.verify(received.body, received.headers as Record<string, string>)).not.toThrow();
        for (const secret of [MESSAGE, NOTE, ANSWER, PASSPHRASE, byOwner.url_token]) expect(received.body).not.toContain(secret);
      }
      const events = receiver.received.map((received) => JSON.parse(received.body) as { type: string; data: Json });
      const seen = events.map((event) => `${event.type} ${String(event.data.url_token_prefix)} ${String(event.data.reason ?? '')}`).sort();
      const prefix = (request: Json) => String(request.url_token).slice(0, 8);
      expect(seen).toEqual(
        [
          `request.responded ${prefix(byOwner)} `,
          `request.closed ${prefix(byOwner)} owner`,
          `request.closed ${prefix(lazily)} days`,
          `request.closed ${prefix(bySweep)} days`,
        ].sort(),
      );
      expect(events.find((event) => event.type === 'request.responded')!.data).toMatchObject({ kind: 'request', name: 'Heard', expired: false });
      await receiver.close();
    });
  });

  describe('mail', () => {
    afterAll(() => app.close({ drop: true }));

    it('mails the requester once when answered, never the answer, the message, the note or the token', async () => {
      const mailpit = await startMailpit();
      try {
        app = await startMailingTestApp(mailpit.env);
        owner = { authorization: `Bearer ${await app.createUser('asker@example.com')}` };
        const { url_token } = await create({ note: NOTE, name: 'Mailed' });
        expect(await mailpit.messages()).toEqual([]);
        expect((await respond(url_token, { request: { response: ANSWER } })).status).toBe(200);
        expect((await respond(url_token, { request: { response: 'again' } })).status).toBe(409);
        await app.service(NotificationWorker).round();
        const [summary] = await mailpit.waitForMessages(1);
        const mail = await mailpit.message(summary.ID);
        expect(mail.To.map((to) => to.Address)).toEqual(['asker@example.com']);
        expect(mail.Subject).toBe('Your secret request was answered');
        for (const secret of [ANSWER, MESSAGE, NOTE, url_token]) {
          expect(mail.Text).not.toContain(secret);
          expect(mail.HTML).not.toContain(secret);
        }
        await app.service(NotificationWorker).round();
        expect(await mailpit.messages()).toHaveLength(1);
      } finally {
        await mailpit.stop();
      }
    });
  });

  describe('with requests off', () => {
    beforeAll(async () => {
      app = await startTestApp({ PWP__ENABLE_REQUESTS: 'false' });
      owner = { authorization: `Bearer ${await app.createUser('off@example.com')}` };
    });
    afterAll(() => app.close({ drop: true }));

    it('says so in the version answer and answers 404 on every route', async () => {
      expect((await api().get('/api/v2/version')).body.features.requests).toEqual({ enabled: false });
      for (const [method, path] of [
        ['POST', '/api/v2/requests'],
        ['POST', '/api/v2/requests.json'],
        ['GET', '/api/v2/requests/active'],
        ['GET', '/api/v2/requests/closed.json'],
        ['GET', '/api/v2/requests/sometoken'],
        ['PATCH', '/api/v2/requests/sometoken/respond'],
        ['DELETE', '/api/v2/requests/sometoken'],
        ['GET', '/api/v2/requests/sometoken/audit'],
      ]) {
        const body = method === 'GET' || method === 'DELETE' ? {} : { json: { request: { request: MESSAGE, response: ANSWER } } };
        const answer = await request(app.baseUrl, method, path, { ...body, headers: owner });
        expect([method, path, answer.status, answer.body]).toEqual([method, path, 404, { error: 'not-found' }]);
      }
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM requests'))[0].n)).toBe(0);
    });
  });
});
