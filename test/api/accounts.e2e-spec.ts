import { UsersService } from '@app/auth';
import { auditKinds } from '../support/helpers';
import { ApiClient, client } from '../support/http';
import { keysOf, OWNED_PUSH_KEYS } from '../support/push-keys';
import { startTestApp, TestApp } from '../support/test-app';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('accounts and ownership', () => {
  let app: TestApp;
  let api: ApiClient;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    app = await startTestApp({ AUDIT_MAX_ENTRIES_PER_PUSH: '12' });
    api = client(app.baseUrl);
    alice = await app.createUser('alice@example.com');
    bob = await app.createUser('bob@example.com');
  });
  afterAll(() => app.close({ drop: true }));

  describe('authentication', () => {
    it('accepts a bearer token with any capitalisation of the scheme, and the legacy header pair', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        expect((await api.get('/api/v2/pushes/active', { authorization: `${scheme} ${alice}` })).status).toBe(200);
      }
      const legacy = await api.get('/api/v2/pushes/active', { 'x-user-email': 'Alice@Example.com', 'x-user-token': alice });
      expect(legacy.status).toBe(200);
      expect((await api.get('/api/v2/pushes/active', { 'x-user-email': 'bob@example.com', 'x-user-token': alice })).status).toBe(401);
    });

    it.each([
      ['an unknown token', { authorization: 'Bearer pwp_not-a-real-token' }],
      ['a blank token', { authorization: 'Bearer ' }],
      ['another scheme', { authorization: 'Basic YWxpY2U6cHc=' }],
      ['a legacy token without email', { 'x-user-token': 'pwp_x' }],
    ])('answers 401 with WWW-Authenticate for %s, even on public endpoints', async (_case, headers) => {
      const push = await api.createPush({ payload: 'public' });
      for (const [method, path] of [
        ['GET', `/api/v2/pushes/${push.url_token}`],
        ['GET', `/api/v2/pushes/${push.url_token}/preview`],
        ['POST', '/api/v2/pushes'],
        ['GET', '/api/v2/pushes/active'],
      ]) {
        const result = await api.raw(method, path, { headers: { ...headers, 'content-type': 'application/json' }, body: method === 'POST' ? '{"push":{"payload":"x"}}' : undefined });
        expect([path, result.status]).toEqual([path, 401]);
        expect(result.body).toEqual({ error: expect.any(String) });
        expect(result.headers.get('www-authenticate')).toBe('Bearer');
      }
      expect((await api.get(`/api/v2/pushes/${push.url_token}`)).body.payload).toBe('public');
    });

    it('keeps the version endpoint public even with a bad token', async () => {
      expect((await api.get('/api/v2/version', { authorization: 'Bearer nonsense' })).status).toBe(200);
    });

    it('requires a token for the lists and the audit log', async () => {
      for (const path of ['/api/v2/pushes/active', '/api/v2/pushes/expired', '/api/v2/pushes/whatever/audit']) {
        const result = await api.get(path);
        expect(result.status).toBe(401);
        expect(result.headers.get('www-authenticate')).toBe('Bearer');
      }
    });

    it('stops a rotated token at once, keeps other named tokens, and revokes them all', async () => {
      const users = app.service(UsersService);
      const first = await app.createUser('carol@example.com');
      const ci = (await users.issueToken('carol@example.com', 'ci')).api_token;
      const rotated = (await users.issueToken('carol@example.com')).api_token;
      const status = async (token: string) => (await api.get('/api/v2/pushes/active', bearer(token))).status;
      expect([await status(first), await status(ci), await status(rotated)]).toEqual([401, 200, 200]);
      expect(await users.revokeTokens('carol@example.com')).toBe(2);
      expect([await status(ci), await status(rotated)]).toEqual([401, 401]);
    });

    it('answers 401 for an expired token, as for a revoked one, on every endpoint but version; rotation keeps its lifetime', async () => {
      const users = app.service(UsersService);
      await app.createUser('erin@example.com');
      const month = (await users.issueToken('erin@example.com', 'month', 30)).api_token;
      const forever = (await users.issueToken('erin@example.com', 'forever')).api_token;
      const status = async (token: string) => (await api.get('/api/v2/pushes/active', bearer(token))).status;
      expect([await status(month), await status(forever)]).toEqual([200, 200]);

      app.clock.advance(30 * 86_400_000 - 60_000);
      expect(await status(month)).toBe(200);
      const user = await users.find('erin@example.com');
      const rotated = (await users.rotateToken(user, 'month')).api_token;
      app.clock.advance(120_000);
      const expired = await api.get('/api/v2/pushes/active', bearer(month));
      expect([expired.status, expired.headers.get('www-authenticate'), expired.body]).toEqual([401, 'Bearer', { error: 'Invalid or revoked API token.' }]);
      expect((await api.post('/api/v2/pushes', { push: { payload: 'x' } }, bearer(month))).status).toBe(401);
      expect((await api.get('/api/v2/version', bearer(month))).status).toBe(200);
      expect([await status(rotated), await status(forever)]).toEqual([200, 200]);
      const listed = await users.tokens(user);
      expect(listed.map((token) => [token.name, token.expired, token.expires_at === null])).toEqual([
        ['default', false, true],
        ['forever', false, true],
        ['month', false, false],
      ]);
      // The rotated token was given the old one's 30 days from its own issue.
      expect(Date.parse(listed[2].expires_at!) - Date.parse(listed[2].created_at)).toBe(30 * 86_400_000);

      app.clock.advance(30 * 86_400_000);
      expect([await status(rotated), await status(forever)]).toEqual([401, 200]);
      await expect(users.issueToken('erin@example.com', 'odd', 7)).rejects.toThrow('A token expires after 30, 90, 365 days, or never.');
    });

    it('stores tokens only as hashes', async () => {
      const token = await app.createUser('dave@example.com');
      const rows: { token_hash: string }[] = await app.query('SELECT token_hash FROM api_tokens');
      expect(rows.map((row) => row.token_hash)).not.toContain(token);
      expect(JSON.stringify(rows)).not.toContain(token.slice(4));
      expect(token).toMatch(/^pwp_[A-Za-z0-9_-]{43}$/);
    });
  });

  describe('ownership', () => {
    it('gives pushes created with a token to that user, and audits the owner without counting', async () => {
      const push = await api.createPush({ payload: 'mine', expire_after_views: 1 }, bearer(alice));
      const owner = await api.get(`/api/v2/pushes/${push.url_token}`, bearer(alice));
      expect(owner.body).toMatchObject({ payload: 'mine', views_remaining: 1, expired: false });
      const viewer = await api.get(`/api/v2/pushes/${push.url_token}`);
      expect(viewer.body).toMatchObject({ payload: 'mine', views_remaining: 0 });
      expect(await auditKinds(app.baseUrl, push.url_token, alice)).toEqual(['creation', 'owner_view', 'view']);
    });

    it('asks the owner for the passphrase too', async () => {
      const push = await api.createPush({ payload: 'p', passphrase: 'pw' }, bearer(alice));
      expect((await api.get(`/api/v2/pushes/${push.url_token}`, bearer(alice))).status).toBe(401);
      expect((await api.get(`/api/v2/pushes/${push.url_token}`, { ...bearer(alice), 'x-passphrase': 'pw' })).body.payload).toBe('p');
    });

    it('lets the owner delete any of their pushes; others get 403, anonymous callers 401', async () => {
      const push = await api.createPush({ payload: 'x', deletable_by_viewer: false, passphrase: 'pw' }, bearer(alice));
      const anonymous = await api.delete(`/api/v2/pushes/${push.url_token}`);
      expect(anonymous).toMatchObject({ status: 401, body: { error: 'That push is not deletable by viewers.' } });
      const other = await api.delete(`/api/v2/pushes/${push.url_token}`, bearer(bob));
      expect(other).toMatchObject({ status: 403, body: { error: 'That push is not deletable by viewers.' } });
      const owner = await api.delete(`/api/v2/pushes/${push.url_token}`, bearer(alice));
      expect(owner.status).toBe(200);
      expect(owner.body).toMatchObject({ expired: true, deleted: true });
    });

    it('shows the audit log to the owner only', async () => {
      const push = await api.createPush({ payload: 'x' }, bearer(alice));
      expect((await api.get(`/api/v2/pushes/${push.url_token}/audit`)).status).toBe(401);
      expect(await api.get(`/api/v2/pushes/${push.url_token}/audit`, bearer(bob))).toMatchObject({
        status: 403,
        body: { error: "That push doesn't belong to you." },
      });
      expect((await api.get('/api/v2/pushes/unknown-token/audit', bearer(alice))).status).toBe(404);
      const anonymousPush = await api.createPush({ payload: 'x' });
      expect((await api.get(`/api/v2/pushes/${anonymousPush.url_token}/audit`, bearer(alice))).status).toBe(403);
    });
  });

  describe('audit log', () => {
    it('records a 2-view push retrieved 3 times as creation, view, view, failed_view', async () => {
      const push = await api.createPush({ payload: 'x', expire_after_views: 2 }, bearer(alice));
      for (let i = 0; i < 3; i++) await api.get(`/api/v2/pushes/${push.url_token}`, bearer(bob));
      expect(await auditKinds(app.baseUrl, push.url_token, alice)).toEqual(['creation', 'view', 'view', 'failed_view']);
    });

    it('keeps events in the order they happened, with client details', async () => {
      const push = await api.createPush({ payload: 'x', passphrase: 'pw', expire_after_views: 5 }, bearer(alice));
      await api.get(`/api/v2/pushes/${push.url_token}?passphrase=wrong`, { 'user-agent': 'UA-1', referer: 'https://r.example/' });
      await api.get(`/api/v2/pushes/${push.url_token}?passphrase=pw`, { 'user-agent': 'x'.repeat(400) });
      await api.delete(`/api/v2/pushes/${push.url_token}`, bearer(alice));
      await api.get(`/api/v2/pushes/${push.url_token}`);
      const { status, body } = await api.get(`/api/v2/pushes/${push.url_token}/audit`, bearer(alice));
      expect(status).toBe(200);
      expect(body.logs.map((entry: { kind: string }) => entry.kind)).toEqual(['creation', 'failed_passphrase', 'view', 'expire', 'failed_view']);
      expect(Object.keys(body.logs[0]).sort()).toEqual(['created_at', 'ip', 'kind', 'referrer', 'updated_at', 'user_agent']);
      expect(body.logs[1]).toMatchObject({ user_agent: 'UA-1', referrer: 'https://r.example/', ip: expect.stringContaining('127.0.0.1') });
      expect(body.logs[2].user_agent).toHaveLength(255);
      expect(body.logs[3].referrer).toBe('');
    });

    it('pages 60 entries 50 at a time without overlap', async () => {
      const push = await api.createPush({ payload: 'x', expire_after_views: 100 }, bearer(alice));
      for (let i = 1; i < 60; i++) await api.get(`/api/v2/pushes/${push.url_token}`, { 'user-agent': `agent-${i}` });
      const page = async (n: number) => (await api.get(`/api/v2/pushes/${push.url_token}/audit?page=${n}`, bearer(alice))).body.logs as { user_agent: string }[];
      const [one, two, three] = [await page(1), await page(2), await page(3)];
      expect([one.length, two.length, three.length]).toEqual([50, 10, 0]);
      const agents = [...one, ...two].map((entry) => entry.user_agent);
      expect(agents).toEqual(['node', ...Array.from({ length: 59 }, (_, i) => `agent-${i + 1}`)]);
    });

    it('stops writing failed_view and failed_passphrase past the cap, but still writes the rest', async () => {
      const push = await api.createPush({ payload: 'x', passphrase: 'pw', expire_after_views: 3 }, bearer(alice));
      for (let i = 0; i < 15; i++) {
        app.clock.advance(61_000); // stay under the passphrase attempt limit
        await api.get(`/api/v2/pushes/${push.url_token}?passphrase=bad`);
      }
      const kinds = await auditKinds(app.baseUrl, push.url_token, alice);
      expect(kinds).toHaveLength(12);
      expect(kinds.filter((kind) => kind === 'failed_passphrase')).toHaveLength(11);
      await api.get(`/api/v2/pushes/${push.url_token}?passphrase=pw`);
      await api.get(`/api/v2/pushes/${push.url_token}?passphrase=pw`, bearer(alice));
      await api.delete(`/api/v2/pushes/${push.url_token}`, bearer(alice));
      await api.get(`/api/v2/pushes/${push.url_token}`);
      expect((await auditKinds(app.baseUrl, push.url_token, alice)).slice(12)).toEqual(['view', 'owner_view', 'expire']);
    });
  });

  describe('lists', () => {
    it('lists the caller\'s own active and expired pushes, newest first, with name and note', async () => {
      const owner = await app.createUser('lister@example.com');
      const first = await api.createPush({ payload: 'a', name: 'first', note: 'note a' }, bearer(owner));
      const second = await api.createPush({ payload: 'b', name: 'second' }, bearer(owner));
      await api.createPush({ payload: 'not mine' }, bearer(bob));
      await api.delete(`/api/v2/pushes/${first.url_token}`, bearer(owner));

      const active = await api.get('/api/v2/pushes/active', bearer(owner));
      expect(active.status).toBe(200);
      expect(active.body.map((p: { url_token: string }) => p.url_token)).toEqual([second.url_token]);
      expect(keysOf(active.body[0])).toEqual(OWNED_PUSH_KEYS);
      expect(active.headers.get('link')).toBeNull();

      const expired = await api.get('/api/v2/pushes/expired', bearer(owner));
      expect(expired.body).toHaveLength(1);
      expect(expired.body[0]).toMatchObject({ url_token: first.url_token, name: 'first', note: 'note a', expired: true, deleted: true });
    });

    it('moves pushes whose day window elapsed to the expired list', async () => {
      const owner = await app.createUser('elapsed@example.com');
      const push = await api.createPush({ payload: 'a', expire_after_days: 1 }, bearer(owner));
      app.clock.advance(24 * 60 * 60 * 1000);
      expect((await api.get('/api/v2/pushes/active', bearer(owner))).body).toEqual([]);
      expect((await api.get('/api/v2/pushes/expired', bearer(owner))).body.map((p: { url_token: string }) => p.url_token)).toEqual([push.url_token]);
    });

    it.each(['0', '-1', '201', 'abc', '1.5', '', '1e2'])('answers 400 for page=%s', async (page) => {
      const result = await api.get(`/api/v2/pushes/active?page=${page}`, bearer(alice));
      expect(result).toMatchObject({ status: 400, body: { error: 'Invalid page parameter' } });
    });

    it('pages 60 pushes 50 at a time with a Link to the next page', async () => {
      const owner = await app.createUser('many@example.com');
      const created: string[] = [];
      for (let i = 0; i < 60; i++) created.push((await api.createPush({ payload: `p${i}` }, bearer(owner))).url_token);
      const first = await api.get('/api/v2/pushes/active', bearer(owner));
      expect(first.body).toHaveLength(50);
      expect(first.headers.get('link')).toBe(`<${app.baseUrl}/api/v2/pushes/active?page=2>; rel="next"`);
      const second = await api.get('/api/v2/pushes/active?page=2', bearer(owner));
      expect(second.body).toHaveLength(10);
      expect(second.headers.get('link')).toBeNull();
      const listed = [...first.body, ...second.body].map((p: { url_token: string }) => p.url_token);
      expect(listed).toEqual([...created].reverse());
      expect((await api.get('/api/v2/pushes/active?page=3', bearer(owner))).body).toEqual([]);
    });

    it('links the expired list to its own next page', async () => {
      const owner = await app.createUser('many-expired@example.com');
      for (let i = 0; i < 51; i++) await api.createPush({ payload: `e${i}`, expire_after_days: 1 }, bearer(owner));
      app.clock.advance(24 * 60 * 60 * 1000);
      const first = await api.get('/api/v2/pushes/expired', bearer(owner));
      expect(first.body).toHaveLength(50);
      expect(first.headers.get('link')).toBe(`<${app.baseUrl}/api/v2/pushes/expired?page=2>; rel="next"`);
      expect((await api.get('/api/v2/pushes/expired?page=2', bearer(owner))).headers.get('link')).toBeNull();
    });

    it('answers 400 for a repeated page parameter', async () => {
      expect((await api.get('/api/v2/pushes/expired?page=1&page=2', bearer(alice))).status).toBe(400);
    });
  });
});

describe('with PWP__ALLOW_ANONYMOUS=false', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ PWP__ALLOW_ANONYMOUS: 'false' });
  });
  afterAll(() => app.close({ drop: true }));

  it('requires a token everywhere but the version endpoint, which reports the mode', async () => {
    const api = client(app.baseUrl);
    const token = await app.createUser('only@example.com');
    const version = await api.get('/api/v2/version');
    expect(version.status).toBe(200);
    expect(version.body.features.anonymous_access).toBe(false);

    const push = await api.createPush({ payload: 'members only' }, bearer(token));
    for (const result of [
      await api.post('/api/v2/pushes', { push: { payload: 'x' } }),
      await api.get(`/api/v2/pushes/${push.url_token}`),
      await api.get(`/api/v2/pushes/${push.url_token}/preview`),
      await api.delete(`/api/v2/pushes/${push.url_token}`),
    ]) {
      expect(result.status).toBe(401);
      expect(result.headers.get('www-authenticate')).toBe('Bearer');
    }
    const other = await app.createUser('other@example.com');
    expect((await api.get(`/api/v2/pushes/${push.url_token}`, bearer(other))).body.payload).toBe('members only');
  });
});
