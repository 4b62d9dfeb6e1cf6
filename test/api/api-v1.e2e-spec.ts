import { randomBytes } from 'node:crypto';
import { UsersService } from '@app/auth';
import { auditKinds, sha256 } from '../support/helpers';
import { client, rawRequest, request, type ApiClient, type HttpResult } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

/** The reference's legacy API v1, as its clients call it (spec "API v1 (legacy)"). */

const EMAIL = 'v1-owner@example.com';

type Auth = { name: string; headers: (token: string) => Record<string, string> };
const AUTH_STYLES: Auth[] = [
  { name: 'Bearer', headers: (token) => ({ authorization: `Bearer ${token}` }) },
  { name: 'X-User-Email + X-User-Token', headers: (token) => ({ 'x-user-email': EMAIL, 'x-user-token': token }) },
];

type Encoding = 'JSON' | 'form' | 'multipart';
const ENCODINGS: Encoding[] = ['JSON', 'form', 'multipart'];

/** A create body under `wrapper`, in one of the three encodings the reference reads. */
function createBody(wrapper: string, fields: Record<string, string | number>, encoding: Encoding): { body: string | FormData; headers: Record<string, string> } {
  switch (encoding) {
    case 'JSON':
      return { body: JSON.stringify({ [wrapper]: fields }), headers: { 'content-type': 'application/json' } };
    case 'form':
      return {
        body: new URLSearchParams(Object.entries(fields).map(([name, value]): [string, string] => [`${wrapper}[${name}]`, String(value)])).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      };
    case 'multipart': {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(`${wrapper}[${name}]`, String(value));
      return { body: form, headers: {} };
    }
  }
}

describe('API v1', () => {
  let app: TestApp;
  let api: ApiClient;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    api = client(app.baseUrl);
    token = await app.createUser(EMAIL);
  });
  afterAll(() => app.close({ drop: true }));

  const post = (path: string, wrapper: string, fields: Record<string, string | number>, encoding: Encoding, headers: Record<string, string> = {}) => {
    const { body, headers: typed } = createBody(wrapper, fields, encoding);
    return request(app.baseUrl, 'POST', path, { body, headers: { ...typed, ...headers } });
  };

  describe('version', () => {
    it.each(['/api/v1/version', '/api/v1/version.json'])('%s answers the reference v1 shape, without features, with deprecation headers', async (path) => {
      const answer = await api.get(path, { authorization: 'Bearer not-a-token' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ application_version: expect.any(String), api_version: '1.5', edition: 'oss' });
      expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(answer.headers.get('link')).toBe(`<${app.baseUrl}/api-docs>; rel="successor-version"`);
    });
  });

  describe.each(AUTH_STYLES)('with $name', (auth) => {
    it.each(ENCODINGS)('creates, previews, retrieves, audits, lists and deletes a push sent as %s', async (encoding) => {
      const owner = auth.headers(token);
      const created = await post('/p.json', 'password', { payload: `v1 ${encoding}`, expire_after_views: 3, name: 'v1 push', note: 'owner note', retrieval_step: 'false' }, encoding, owner);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ kind: 'text', expire_after_views: 3, name: 'v1 push', note: 'owner note', retrieval_step: false, views_remaining: 3 });
      expect(created.body).not.toHaveProperty('payload');
      expect(created.headers.get('deprecation')).toMatch(/^@\d+$/);
      const urlToken = created.body.url_token as string;
      // v1's json_url is the reference's: this push's v1 route.
      expect(created.body.json_url).toBe(`${app.baseUrl}/p/${urlToken}.json`);

      expect(await api.get(`/p/${urlToken}/preview.json`)).toMatchObject({ status: 200, body: { url: `${app.baseUrl}/p/${urlToken}` } });
      const viewed = await api.get(`/p/${urlToken}.json`);
      expect(viewed).toMatchObject({ status: 200, body: { payload: `v1 ${encoding}`, views_remaining: 2, expired: false, json_url: `${app.baseUrl}/p/${urlToken}.json` } });
      expect(viewed.headers.get('cache-control')).toBe('no-store');

      const audit = await api.get(`/p/${urlToken}/audit.json`, owner);
      expect(audit.status).toBe(200);
      expect(Object.keys(audit.body)).toEqual(['views']);
      expect(audit.body.views).toEqual([
        { kind: 'creation', ip: expect.any(String), user_agent: expect.any(String), referrer: '', created_at: expect.any(String), updated_at: expect.any(String) },
        expect.objectContaining({ kind: 'view' }),
      ]);

      const active = await api.get('/p/active.json', owner);
      expect(active.status).toBe(200);
      expect((active.body as { url_token: string }[]).map((push) => push.url_token)).toContain(urlToken);
      expect(active.headers.get('link')).toMatch(/successor-version/);

      const deleted = await api.delete(`/p/${urlToken}.json`, owner);
      expect(deleted).toMatchObject({ status: 200, body: { expired: true, deleted: true } });
      expect(await api.get(`/p/${urlToken}.json`)).toMatchObject({ status: 200, body: { expired: true, payload: null } });
      const expired = await api.get('/p/expired.json', owner);
      expect((expired.body as { url_token: string }[]).map((push) => push.url_token)).toContain(urlToken);
    });

    it.each(ENCODINGS)('creates a URL push on /r.json from %s, and reads it under /r', async (encoding) => {
      const created = await post('/r.json', 'url', { payload: 'https://example.com/welcome', deletable_by_viewer: 'true' }, encoding, auth.headers(token));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ kind: 'url', deletable_by_viewer: null });
      expect(await api.get(`/r/${created.body.url_token as string}.json`)).toMatchObject({ status: 200, body: { kind: 'url', payload: 'https://example.com/welcome' } });
      expect((await api.get('/r/active.json', auth.headers(token))).status).toBe(200);
      expect((await api.get(`/r/${created.body.url_token as string}/audit.json`, auth.headers(token))).body.views).toHaveLength(2);
    });
  });

  it.each(ENCODINGS)('ignores notify_emails_to and its locale sent as %s, as the reference\'s v1 does (v2 refuses them here: no mail)', async (encoding) => {
    for (const headers of [{}, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
      const created = await post('/p.json', 'password', { payload: 'no mail', notify_emails_to: 'a@example.com', notify_emails_to_locale: 'de' }, encoding, headers);
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('notify_emails_to');
      expect(created.body).not.toHaveProperty('notify_emails_to_locale');
    }
  });

  describe('file pushes', () => {
    const bytes = randomBytes(70_000);
    const upload = (path: string, wrapper: string, fields: Record<string, string>, headers: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(`${wrapper}[${name}]`, value);
      form.append(`${wrapper}[files][]`, new Blob([bytes], { type: 'application/octet-stream' }), 'report.bin');
      return request(app.baseUrl, 'POST', path, { body: form, headers });
    };
    const downloaded = async (retrieved: HttpResult) => {
      const [file] = retrieved.body.files as { url: string; filename: string; size: number }[];
      expect(file).toMatchObject({ filename: 'report.bin', size: bytes.length });
      const answer = await fetch(file.url);
      expect(answer.status).toBe(200);
      return sha256(Buffer.from(await answer.arrayBuffer()));
    };

    it.each(AUTH_STYLES)('uploads to /f.json (multipart, $name) and downloads byte for byte', async (auth) => {
      const created = await upload('/f.json', 'file_push', { payload: '', expire_after_views: '2' }, auth.headers(token));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ kind: 'file' });
      const retrieved = await api.get(`/f/${created.body.url_token as string}.json`);
      expect(await downloaded(retrieved)).toBe(sha256(bytes));
    });

    it('makes a file push on /p.json when files come, even beside kind=text (as the Terraform provider sends)', async () => {
      const created = await upload('/p.json', 'password', { kind: 'text', payload: 'see the file' }, { 'x-user-email': EMAIL, 'x-user-token': token });
      expect(created).toMatchObject({ status: 201, body: { kind: 'file' } });
      const retrieved = await api.get(`/p/${created.body.url_token as string}.json`);
      expect(retrieved.body.payload).toBe('see the file');
      expect(await downloaded(retrieved)).toBe(sha256(bytes));
    });

    it('refuses files on /p.json without a token, keeping nothing', async () => {
      const before = Number((await app.query('SELECT COUNT(*) AS n FROM pushes'))[0].n);
      expect(await upload('/p.json', 'password', { payload: 'x' }, {})).toMatchObject({ status: 401, body: { error: 'File pushes require authentication.' } });
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM pushes'))[0].n)).toBe(before);
    });
  });

  describe("the reference's 401s and 400s", () => {
    it.each([
      ['/f.json', 'file_push'],
      ['/r.json', 'url'],
    ])('%s needs a token, anonymous use allowed or not', async (path, wrapper) => {
      const answer = await post(path, wrapper, { payload: 'https://example.com' }, 'JSON');
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/);
    });

    it.each(['p', 'f', 'r'])('lists and audits under /%s need a token; retrieval and preview do not', async (collection) => {
      const push = await api.createPush({ payload: 'public to its recipient' });
      for (const path of [`/${collection}/active.json`, `/${collection}/expired.json`, `/${collection}/${push.url_token}/audit.json`]) {
        expect([path, (await api.get(path)).status]).toEqual([path, 401]);
      }
      expect((await api.get(`/${collection}/${push.url_token}/preview.json`)).status).toBe(200);
      expect((await api.get(`/${collection}/${push.url_token}.json`)).body.payload).toBe('public to its recipient');
    });

    it.each([
      ['/p.json', 'password'],
      ['/f.json', 'file_push'],
      ['/r.json', 'url'],
    ])('a missing wrapper on %s is a 400 naming it', async (path, wrapper) => {
      const answer = await request(app.baseUrl, 'POST', path, { json: { push: { payload: 'x' } }, headers: { authorization: `Bearer ${token}` } });
      expect(answer).toMatchObject({ status: 400, body: { error: `param is missing or the value is empty or invalid: ${wrapper}` } });
    });

    it('answers a wrong passphrase, an unknown token and a foreign audit as v2 does', async () => {
      const guarded = await post('/p.json', 'password', { payload: 'guarded', passphrase: 'open sesame' }, 'JSON');
      const urlToken = guarded.body.url_token as string;
      expect(await api.get(`/p/${urlToken}.json`)).toMatchObject({ status: 401, body: { error: 'That passphrase is incorrect.' } });
      expect(await api.get(`/p/${urlToken}.json?passphrase=open%20sesame`)).toMatchObject({ status: 200, body: { payload: 'guarded' } });
      expect(await api.get('/p/unknown-token.json')).toMatchObject({ status: 404, body: { error: 'not-found' } });
      expect(await api.get(`/p/${urlToken}/audit.json`, { authorization: `Bearer ${token}` })).toMatchObject({
        status: 403,
        body: { error: "That push doesn't belong to you." },
      });
      expect((await api.delete(`/p/${urlToken}.json`)).status).toBe(401);
      expect(await api.delete(`/p/${urlToken}.json`, { 'x-passphrase': 'open sesame' })).toMatchObject({ status: 200, body: { deleted: true } });
    });
  });

  it('lets any origin POST /p.json (CORS, as the reference), and no other v1 route', async () => {
    const preflight = await fetch(`${app.baseUrl}/p.json`, {
      method: 'OPTIONS',
      headers: { origin: 'https://tool.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    const created = await post('/p.json', 'password', { payload: 'from a browser tool' }, 'JSON', { origin: 'https://tool.example' });
    expect(created.headers.get('access-control-allow-origin')).toBe('*');
    const retrieved = await api.get(`/p/${created.body.url_token as string}.json`, { origin: 'https://tool.example' });
    expect(retrieved.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers GET /api with the documentation for people (a redirect to /api-docs)', async () => {
    const answer = await fetch(`${app.baseUrl}/api`, { redirect: 'manual' });
    expect([answer.status, answer.headers.get('location')]).toEqual([302, '/api-docs']);
    expect((await fetch(`${app.baseUrl}/api`)).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('leaves the recipient pages at /p/:url_token and /p/:url_token/r as they are', async () => {
    const push = await api.createPush({ payload: 'page' }, { authorization: `Bearer ${token}` });
    for (const path of [`/p/${push.url_token}`, `/p/${push.url_token}/r`]) {
      const page = await fetch(`${app.baseUrl}${path}`);
      expect([path, page.status, page.headers.get('content-type')]).toEqual([path, 200, 'text/html; charset=utf-8']);
      expect(page.headers.get('deprecation')).toBeNull();
    }
    expect(await auditKinds(app.baseUrl, push.url_token, token)).toEqual(['creation']);
  });

  it('reads GET and DELETE with a JSON body of null, as PassPushPosh sends them', async () => {
    const push = await api.createPush({ payload: 'powershell' });
    // fetch sends no body with a GET: node:http does.
    const withNullBody = (method: string) =>
      rawRequest(new URL(`${app.baseUrl}/p/${push.url_token}.json`), { method, headers: { 'content-type': 'application/json', 'content-length': '4' } }, 'null');
    expect(await withNullBody('GET')).toMatchObject({ status: 200, body: { payload: 'powershell' } });
    expect(await withNullBody('DELETE')).toMatchObject({ status: 200, body: { deleted: true } });
  });
});

describe('API v1 turned off (PWP__API_V1__ENABLED=false)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ PWP__API_V1__ENABLED: 'false' });
  });
  afterAll(() => app.close({ drop: true }));

  it('answers 404 on every v1 route, its version endpoint included, so that clients do not detect a v1 that is gone', async () => {
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'v2 only' });
    const token = await app.service(UsersService).create('off@example.com');
    const headers = { authorization: `Bearer ${token.api_token}`, 'content-type': 'application/json' };
    for (const [method, path] of [
      ['POST', '/p.json'],
      ['POST', '/f.json'],
      ['POST', '/r.json'],
      ['GET', `/p/${push.url_token}.json`],
      ['DELETE', `/p/${push.url_token}.json`],
      ['GET', `/r/${push.url_token}/preview.json`],
      ['GET', `/f/${push.url_token}/audit.json`],
      ['GET', '/p/active.json'],
      ['GET', '/r/expired.json'],
      ['GET', '/api/v1/version'],
      ['GET', '/api/v1/version.json'],
    ]) {
      const answer = await request(app.baseUrl, method, path, { headers, body: method === 'POST' ? JSON.stringify({ password: { payload: 'x' } }) : undefined });
      expect([method, path, answer.status, answer.body]).toEqual([method, path, 404, { error: 'not-found' }]);
    }
    expect((await api.get('/api/v2/version.json')).body).toMatchObject({ api_version: '2.1' });
    expect((await api.get(`/api/v2/pushes/${push.url_token}.json`)).body).toMatchObject({ payload: 'v2 only' });
  });
});
