import { DAY_MS } from '@app/common';
import { ApiClient, client, request } from '../support/http';
import { keysOf, OWNED_PUSH_KEYS, PUSH_KEYS, RETRIEVED_PUSH_KEYS } from '../support/push-keys';
import { startTestApp, TestApp } from '../support/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('push lifecycle', () => {
  let app: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    app = await startTestApp();
    api = client(app.baseUrl);
  });
  afterAll(() => app.close({ drop: true }));

  describe('POST /api/v2/pushes', () => {
    it('creates a text push with the kind defaults and answers the create variant', async () => {
      const { status, body } = await api.post('/api/v2/pushes', { push: { payload: 'create-me', name: 'label', note: 'owner note' } });
      expect(status).toBe(201);
      expect(keysOf(body)).toEqual(OWNED_PUSH_KEYS);
      expect(body).toMatchObject({
        kind: 'text',
        expire_after_days: 7,
        expire_after_views: 5,
        expired: false,
        expired_on: null,
        deleted: false,
        deletable_by_viewer: true,
        retrieval_step: true,
        passphrase_protected: false,
        days_remaining: 7,
        views_remaining: 5,
        name: 'label',
        note: 'owner note',
      });
      expect(body.url_token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(Buffer.from(body.url_token, 'base64url').length).toBeGreaterThanOrEqual(16);
      for (const key of ['created_at', 'updated_at', 'expires_at']) expect(body[key]).toMatch(ISO);
      expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(7 * DAY_MS);
      expect(body.html_url).toBe(`${app.baseUrl}/p/${body.url_token}/r`);
      expect(body.json_url).toBe(`${app.baseUrl}/api/v2/pushes/${body.url_token}`);
      expect(body).not.toHaveProperty('payload');
      expect(body).not.toHaveProperty('passphrase');
    });

    it('hands out a different token every time', async () => {
      const tokens = new Set<string>();
      for (let i = 0; i < 20; i++) tokens.add((await api.createPush({ payload: 'x' })).url_token);
      expect(tokens.size).toBe(20);
    });

    it('accepts explicit limits, numeric strings and boolean words', async () => {
      const body = await api.createPush({
        payload: 'p',
        expire_after_days: '3',
        expire_after_views: 90,
        deletable_by_viewer: 'false',
        retrieval_step: '0',
      });
      expect(body).toMatchObject({ expire_after_days: 3, expire_after_views: 90, deletable_by_viewer: false, retrieval_step: false });
      expect(body.html_url).toBe(`${app.baseUrl}/p/${body.url_token}`);
    });

    it('treats null limits as omitted', async () => {
      const body = await api.createPush({ payload: 'p', expire_after_days: null, expire_after_views: null });
      expect(body).toMatchObject({ expire_after_days: 7, expire_after_views: 5 });
    });

    it.each([
      ['expire_after_days', 0],
      ['expire_after_days', 91],
      ['expire_after_views', 0],
      ['expire_after_views', 101],
    ])('rejects %s = %s outside the kind range with 422', async (field, value) => {
      const { status, body } = await api.post('/api/v2/pushes', { push: { payload: 'p', [field]: value } });
      expect(status).toBe(422);
      expect(Object.keys(body.errors)).toEqual([field]);
      expect(body.error).toMatch(/must be between 1 and (90|100)\./);
    });

    it('creates url pushes with deletable_by_viewer null, and qr pushes', async () => {
      const url = await api.createPush({ kind: 'url', payload: 'https://example.com/a?b=c', deletable_by_viewer: true });
      expect(url).toMatchObject({ kind: 'url', deletable_by_viewer: null });
      const qr = await api.createPush({ kind: 'qr', payload: 'WIFI:S:net;P:pw;;' });
      expect(qr).toMatchObject({ kind: 'qr', deletable_by_viewer: true });
    });

    it('refuses file pushes without files, files on other kinds, and files that are not file objects', async () => {
      const owner = { authorization: `Bearer ${await app.createUser('files@example.com')}` };
      const { status, body } = await api.post('/api/v2/pushes', { push: { kind: 'file', payload: 'x' } }, owner);
      expect(status).toBe(422);
      expect(body).toEqual({ error: 'A file push needs at least one file.', errors: { files: ['A file push needs at least one file.'] } });
      const file = { filename: 'a.txt', data: 'YQ==' };
      const onText = await api.post('/api/v2/pushes', { push: { kind: 'text', payload: 'x', files: [file] } }, owner);
      expect(onText.body.errors).toEqual({ files: ['Files can only be attached to file pushes.'] });
      const notObjects = await api.post('/api/v2/pushes', { push: { payload: 'x', files: ['a'] } }, owner);
      expect(notObjects.status).toBe(422);
      expect(Object.keys(notObjects.body.errors)).toEqual(['files.0']);
      const notBase64 = await api.post('/api/v2/pushes', { push: { files: [{ filename: 'a.txt', data: 'not base64!' }] } }, owner);
      expect(notBase64.body.errors).toEqual({ 'files.0.data': ['Data must be base64.'] });
      const notAList = await api.post('/api/v2/pushes', { push: { payload: 'x', files: 'a' } }, owner);
      expect(notAList.body.errors).toEqual({ files: ['Files must be a list.'] });
    });

    it('requires a payload', async () => {
      const { status, body } = await api.post('/api/v2/pushes', { push: { payload: '   ', name: 'n' } });
      expect(status).toBe(422);
      expect(body).toEqual({ error: 'Payload is required.', errors: { payload: ['Payload is required.'] } });
    });

    it('treats a whitespace-only passphrase as none', async () => {
      const body = await api.createPush({ payload: 'p', passphrase: '   ' });
      expect(body.passphrase_protected).toBe(false);
      expect((await api.get(`/api/v2/pushes/${body.url_token}`)).status).toBe(200);
    });

    it('accepts multipart/form-data fields, and file parts only as push[files][]', async () => {
      const form = new FormData();
      form.append('push[payload]', 'from a form');
      form.append('push[expire_after_views]', '2');
      const created = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', body: form });
      expect(created.status).toBe(201);
      const body = (await created.json()) as { url_token: string; expire_after_views: number };
      expect(body.expire_after_views).toBe(2);
      expect((await api.get(`/api/v2/pushes/${body.url_token}`)).body.payload).toBe('from a form');

      const misplaced = new FormData();
      misplaced.append('push[payload]', new Blob(['file body']), 'a.txt');
      const owner = { authorization: `Bearer ${await app.createUser('multipart@example.com')}` };
      const refused = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', body: misplaced, headers: owner });
      expect(refused.status).toBe(422);
      expect(await refused.json()).toEqual({ error: 'Files must be sent as push[files][] parts.', errors: { files: ['Files must be sent as push[files][] parts.'] } });

      const malformed = await api.raw('POST', '/api/v2/pushes', { body: '--x\r\nnot a part', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
      expect(malformed).toMatchObject({ status: 400, body: { error: 'Malformed request body: invalid multipart form data.' } });
    });

    it('writes a creation audit entry', async () => {
      const { url_token } = await api.createPush({ payload: 'audited' }, { 'user-agent': 'jest-agent', referer: 'https://ref.example/' });
      const rows: { kind: string; user_agent: string; referrer: string; ip: string }[] = await app.query(
        'SELECT a.kind, a.user_agent, a.referrer, a.ip FROM audit_entries a JOIN pushes p ON p.id = a.push_id WHERE p.url_token = ?',
        [url_token],
      );
      expect(rows).toEqual([{ kind: 'creation', user_agent: 'jest-agent', referrer: 'https://ref.example/', ip: expect.stringMatching(/127\.0\.0\.1/) }]);
    });
  });

  describe('GET /api/v2/pushes/:url_token', () => {
    it('counts views, returns the payload until the last view, then answers expired', async () => {
      const { url_token } = await api.createPush({ payload: 'two views', expire_after_views: 2 });
      const first = await api.get(`/api/v2/pushes/${url_token}`);
      expect(first.status).toBe(200);
      expect(keysOf(first.body)).toEqual(RETRIEVED_PUSH_KEYS);
      expect(first.body).toMatchObject({ payload: 'two views', files: [], views_remaining: 1, expired: false });
      expect(first.headers.get('cache-control')).toBe('no-store');

      const last = await api.get(`/api/v2/pushes/${url_token}`);
      expect(last.body).toMatchObject({ payload: 'two views', views_remaining: 0, expired: false, expired_on: null });

      const after = await api.get(`/api/v2/pushes/${url_token}`);
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ payload: null, files: [], expired: true, deleted: false, views_remaining: 0 });
      expect(after.body.expired_on).toMatch(ISO);
      expect(after.headers.get('cache-control')).toBe('no-store');
    });

    it('answers 404 for an unknown token', async () => {
      const { status, body } = await api.get('/api/v2/pushes/doesnotexist0000000000000');
      expect(status).toBe(404);
      expect(body).toEqual({ error: 'not-found' });
    });

    it('needs the passphrase, by query or X-Passphrase header, and counts no view without it', async () => {
      const { url_token } = await api.createPush({ payload: 'guarded', passphrase: 'open sesame', expire_after_views: 3 });
      const missing = await api.get(`/api/v2/pushes/${url_token}`);
      expect(missing.status).toBe(401);
      expect(missing.body).toEqual({ error: 'That passphrase is incorrect.', message: expect.stringContaining('requires a passphrase') });
      const wrong = await api.get(`/api/v2/pushes/${url_token}?passphrase=nope`);
      expect(wrong.status).toBe(401);

      const byQuery = await api.get(`/api/v2/pushes/${url_token}?passphrase=${encodeURIComponent('open sesame')}`);
      expect(byQuery.body).toMatchObject({ payload: 'guarded', views_remaining: 2, passphrase_protected: true });
      const byHeader = await api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': 'open sesame' });
      expect(byHeader.body).toMatchObject({ payload: 'guarded', views_remaining: 1 });
    });

    it('blocks a push for a minute after 5 failed passphrases, even with the right one', async () => {
      const { url_token } = await api.createPush({ payload: 'brute', passphrase: 'right', expire_after_views: 10 });
      expect((await api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': 'right' })).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': `wrong${i}` })).status).toBe(401);
      const blocked = await api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': 'right' });
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toEqual(expect.any(String));
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);

      app.clock.advance(61_000);
      const again = await api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': 'right' });
      expect(again.status).toBe(200);
      expect(again.body.views_remaining).toBe(8);
    });

    it('expires a push lazily when its day window has elapsed', async () => {
      const { url_token } = await api.createPush({ payload: 'one day', expire_after_days: 1 });
      app.clock.advance(DAY_MS - 60_000);
      const before = await api.get(`/api/v2/pushes/${url_token}`);
      expect(before.body).toMatchObject({ payload: 'one day', expired: false, days_remaining: 1 });
      app.clock.advance(60_000);
      const after = await api.get(`/api/v2/pushes/${url_token}`);
      expect(after.body).toMatchObject({ payload: null, expired: true, deleted: false, days_remaining: 0 });
    });

    it('needs no passphrase to see that a protected push has expired', async () => {
      const { url_token } = await api.createPush({ payload: 'gone', passphrase: 'pw', expire_after_views: 1 });
      expect((await api.get(`/api/v2/pushes/${url_token}?passphrase=pw`)).body.payload).toBe('gone');
      const { status, body } = await api.get(`/api/v2/pushes/${url_token}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ expired: true, payload: null, passphrase_protected: true });
    });
  });

  describe('GET /api/v2/pushes/:url_token/preview', () => {
    it('answers the secret URL without counting a view, also once expired', async () => {
      const withStep = await api.createPush({ payload: 'p', expire_after_views: 1 });
      const preview = await api.get(`/api/v2/pushes/${withStep.url_token}/preview`);
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({ url: `${app.baseUrl}/p/${withStep.url_token}/r` });
      expect((await api.get(`/api/v2/pushes/${withStep.url_token}`)).body.payload).toBe('p');
      expect((await api.get(`/api/v2/pushes/${withStep.url_token}/preview`)).status).toBe(200);

      const withoutStep = await api.createPush({ payload: 'p', retrieval_step: false });
      expect((await api.get(`/api/v2/pushes/${withoutStep.url_token}/preview`)).body).toEqual({ url: `${app.baseUrl}/p/${withoutStep.url_token}` });
    });

    it('answers 404 for an unknown token', async () => {
      expect(await api.get('/api/v2/pushes/nope/preview')).toMatchObject({ status: 404, body: { error: 'not-found' } });
    });
  });

  describe('DELETE /api/v2/pushes/:url_token', () => {
    it('lets a viewer expire a deletable push, destroying the payload', async () => {
      const { url_token } = await api.createPush({ payload: 'delete me', note: 'kept' });
      const { status, body } = await api.delete(`/api/v2/pushes/${url_token}`);
      expect(status).toBe(200);
      expect(keysOf(body)).toEqual(PUSH_KEYS);
      expect(body).toMatchObject({ expired: true, deleted: true });
      expect(body.expired_on).toMatch(ISO);
      expect((await api.get(`/api/v2/pushes/${url_token}`)).body).toMatchObject({ payload: null, expired: true, deleted: true });
      const [row] = await app.query('SELECT payload, note FROM pushes WHERE url_token = ?', [url_token]);
      expect(row.payload).toBeNull();
      expect(row.note).not.toBeNull();
    });

    it('answers 200 without change for an already expired push', async () => {
      const { url_token } = await api.createPush({ payload: 'x' });
      const first = await api.delete(`/api/v2/pushes/${url_token}`);
      const second = await api.delete(`/api/v2/pushes/${url_token}`);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
    });

    it('refuses a push that is not deletable by viewers', async () => {
      const { url_token } = await api.createPush({ payload: 'x', deletable_by_viewer: false });
      const { status, body, headers } = await api.delete(`/api/v2/pushes/${url_token}`);
      expect(status).toBe(401);
      expect(body).toEqual({ error: 'That push is not deletable by viewers.' });
      expect(headers.get('www-authenticate')).toBe('Bearer');
      expect((await api.get(`/api/v2/pushes/${url_token}`)).body.payload).toBe('x');
    });

    it('requires the passphrase from a viewer deleting a protected push', async () => {
      const { url_token } = await api.createPush({ payload: 'x', passphrase: 'pw' });
      expect((await api.delete(`/api/v2/pushes/${url_token}`)).status).toBe(401);
      expect((await api.delete(`/api/v2/pushes/${url_token}`, { 'x-passphrase': 'pw' })).body).toMatchObject({ deleted: true });
    });

    it('answers 404 for an unknown token', async () => {
      expect(await api.delete('/api/v2/pushes/nope')).toMatchObject({ status: 404, body: { error: 'not-found' } });
    });
  });

  it('answers JSON 404 for unknown routes', async () => {
    // The site root is the push form (a page): see the owner pages' tests.
    for (const path of ['/nope', '/api/v2', '/api/v2/nothing', '/api/v3/pushes']) {
      expect(await api.get(path)).toMatchObject({ status: 404, body: { error: 'not-found' } });
    }
  });
});

describe('settings that shape pushes', () => {
  let app: TestApp;
  afterEach(() => app.close({ drop: true }));

  it('refuses disabled kinds and forces disabled options off', async () => {
    app = await startTestApp({
      PWP__ENABLE_URL_PUSHES: 'false',
      PWP__ENABLE_QR_PUSHES: 'false',
      PWP__PW__ENABLE_RETRIEVAL_STEP: 'false',
      PWP__PW__ENABLE_DELETABLE_PUSHES: 'false',
      PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT: '2',
      PWP__PW__EXPIRE_AFTER_VIEWS_MAX: '10',
    });
    const api = client(app.baseUrl);
    expect((await api.post('/api/v2/pushes', { push: { kind: 'url', payload: 'https://a.example' } })).body.error).toBe('URL pushes are disabled.');
    expect((await api.post('/api/v2/pushes', { push: { kind: 'qr', payload: 'x' } })).body.error).toBe('QR code pushes are disabled.');
    const push = await api.createPush({ payload: 'x', retrieval_step: true, deletable_by_viewer: true });
    expect(push).toMatchObject({ retrieval_step: false, deletable_by_viewer: false, expire_after_days: 2 });
    expect((await api.post('/api/v2/pushes', { push: { payload: 'x', expire_after_views: 11 } })).status).toBe(422);
  });

  it('keeps anonymous URL pushes out with PWP__URL__REQUIRE_ACCOUNT=true, on API v2 and v1 alike', async () => {
    app = await startTestApp({ PWP__URL__REQUIRE_ACCOUNT: 'true' });
    const api = client(app.baseUrl);
    const url = { kind: 'url', payload: 'https://login.example.com/' };
    const refused = { status: 401, body: { error: 'URL pushes require authentication.' } };
    expect(await api.post('/api/v2/pushes', { push: url })).toMatchObject(refused);
    expect(await api.post('/p.json', { password: url })).toMatchObject(refused);
    const form = new FormData();
    form.append('push[kind]', 'url');
    form.append('push[payload]', url.payload);
    expect(await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: form })).toMatchObject(refused);
    expect(Number((await app.query('SELECT COUNT(*) AS n FROM pushes'))[0].n)).toBe(0);
    // Other kinds stay open to everyone; an account makes URL pushes as before.
    expect((await api.post('/api/v2/pushes', { push: { payload: 'text' } })).status).toBe(201);
    const owner = { authorization: `Bearer ${await app.createUser('url-owner@example.com')}` };
    expect(await api.createPush(url, owner)).toMatchObject({ kind: 'url', retrieval_step: true });
    expect((await api.post('/r.json', { url: { payload: url.payload } }, owner)).status).toBe(201);
  });

  it('builds links from PWP__OVERRIDE_BASE_URL when set', async () => {
    app = await startTestApp({ PWP__OVERRIDE_BASE_URL: 'https://secrets.example.com/' });
    const push = await client(app.baseUrl).createPush({ payload: 'x' });
    expect(push.html_url).toBe(`https://secrets.example.com/p/${push.url_token}/r`);
    expect(push.json_url).toBe(`https://secrets.example.com/api/v2/pushes/${push.url_token}`);
  });

  it('believes X-Forwarded-Proto/Host only from trusted proxies', async () => {
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example', 'x-forwarded-for': '203.0.113.9' };
    app = await startTestApp();
    const untrusted = await client(app.baseUrl).createPush({ payload: 'x' }, forwarded);
    expect(untrusted.html_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    await app.close({ drop: true });

    app = await startTestApp({ TRUST_PROXY: '127.0.0.1/8,::1' });
    const trusted = await client(app.baseUrl).createPush({ payload: 'x' }, forwarded);
    expect(trusted.html_url).toBe(`https://public.example/p/${trusted.url_token}/r`);
    const [row] = await app.query('SELECT ip FROM audit_entries ORDER BY id DESC LIMIT 1');
    expect(row.ip).toBe('203.0.113.9');
  });
});
