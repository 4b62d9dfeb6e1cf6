import { randomBytes } from 'node:crypto';
import { UsersService } from '@app/auth';
import { SIGN_IN_LIMITS } from '@app/rate-limit';
import { sha256 } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

/**
 * The pages over plain HTTP, where a browser cannot show what matters: sessions shared by
 * replicas, session renewal, cookie names and flags behind a TLS proxy, sign-in lockouts shared
 * through Redis, and the recipient's page with anonymous API use turned off. (The
 * *.browser-spec.ts files beside this one drive the pages as a person does.)
 */

describe('pages over HTTP', () => {
  let first: TestApp;
  let second: TestApp;
  const prefix = `pwpush-e2e-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    // Two replicas on one database and one Redis, with anonymous API use off.
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: prefix, TRUST_PROXY: '127.0.0.1', PWP__ALLOW_ANONYMOUS: 'false' };
    first = await startTestApp(env);
    second = await startTestApp(env, first.database);
    await first.service(UsersService).create('replicas@example.com', 'a long password');
  });
  afterAll(async () => {
    await second.close();
    await first.close({ drop: true });
  });

  it('keeps a session on every replica, renews it at sign-in, and ends it everywhere at sign-out', async () => {
    const visitor = new Visitor(first.baseUrl);
    const signedIn = await visitor.submit('/users/sign_in', '/users/sign_in', { email: 'replicas@example.com', password: 'a long password' });
    expect([signedIn.status, signedIn.location]).toEqual([303, '/users/token']);
    const session = visitor.cookies.get('pwpush_session')!;
    expect(session).toMatch(/^[\w-]{44}$/);
    expect(visitor.lastSetCookies.find((line) => line.startsWith('pwpush_session='))).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);

    const elsewhere = await visitor.on(second.baseUrl).get('/users/token');
    expect([elsewhere.status, elsewhere.html]).toEqual([200, expect.stringContaining('Signed in as replicas@example.com')]);

    // Signing in again (on either replica) starts a new session; the old cookie stops working.
    // (Signed in, the sign-in page redirects to the tokens page, whose forms carry the same CSRF token.)
    await visitor.submit('/users/token', '/users/sign_in', { email: 'replicas@example.com', password: 'a long password' });
    expect(visitor.cookies.get('pwpush_session')).not.toBe(session);
    const stale = new Visitor(first.baseUrl);
    stale.cookies.set('pwpush_session', session);
    expect((await stale.get('/users/token')).location).toBe('/users/sign_in');

    const current = visitor.cookies.get('pwpush_session')!;
    const signedOut = await visitor.on(second.baseUrl).submit('/users/token', '/users/sign_out', {});
    expect([signedOut.status, signedOut.location]).toEqual([303, '/users/sign_in']);
    expect(visitor.cookies.has('pwpush_session')).toBe(false);
    // A copy of the cookie kept elsewhere is dead too: the session row is gone.
    const copy = new Visitor(first.baseUrl);
    copy.cookies.set('pwpush_session', current);
    expect((await copy.get('/users/token')).location).toBe('/users/sign_in');
  });

  it('names its cookies __Host- and marks them Secure when the request came over https through a trusted proxy', async () => {
    const visitor = new Visitor(first.baseUrl);
    const https = { 'x-forwarded-proto': 'https' };
    expect((await visitor.get('/users/sign_in', https)).status).toBe(200);
    expect(visitor.lastSetCookies).toEqual([expect.stringMatching(/^__Host-pwpush_csrf=[\w-]{32}; Path=\/; HttpOnly; Secure; SameSite=Lax$/)]);
    const signedIn = await visitor.submit('/users/sign_in', '/users/sign_in', { email: 'replicas@example.com', password: 'a long password' }, https);
    expect([signedIn.status, signedIn.location]).toEqual([303, '/users/token']);
    expect(visitor.lastSetCookies).toEqual([
      expect.stringMatching(/^__Host-pwpush_session=[\w-]{44}; Path=\/; HttpOnly; Secure; SameSite=Lax$/),
      expect.stringMatching(/^__Host-pwpush_csrf=[\w-]{32}; Path=\/; HttpOnly; Secure; SameSite=Lax$/),
    ]);
    // The session and its forms work over https on either replica; over plain http the unprefixed
    // names apply, so the same browser is not signed in there.
    const tokens = await visitor.on(second.baseUrl).get('/users/token', https);
    expect([tokens.status, tokens.html]).toEqual([200, expect.stringContaining('Signed in as replicas@example.com')]);
    expect((await visitor.get('/users/token')).location).toBe('/users/sign_in');
    const signedOut = await visitor.submit('/users/token', '/users/sign_out', {}, https);
    expect([signedOut.status, signedOut.location]).toEqual([303, '/users/sign_in']);
    expect(visitor.cookies.has('__Host-pwpush_session')).toBe(false);
  });

  it('still reads, over https, a session started before the __Host- prefix (a 43-character token under the old name), but no newer one', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const [user] = await first.query<{ id: number }>('SELECT id FROM users WHERE email = ?', ['replicas@example.com']);
    const before = randomBytes(32).toString('base64url');
    const now = Date.now();
    await first.query('INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [
      sha256(before),
      user.id,
      now,
      now + 3_600_000,
    ]);
    const upgraded = new Visitor(first.baseUrl);
    upgraded.cookies.set('pwpush_session', before);
    const page = await upgraded.get('/users/token', https);
    expect([page.status, page.html]).toEqual([200, expect.stringContaining('Signed in as replicas@example.com')]);

    // A session issued now cannot be planted under the unprefixed name (a sibling subdomain could set that one).
    const owner = new Visitor(first.baseUrl);
    await owner.submit('/users/sign_in', '/users/sign_in', { email: 'replicas@example.com', password: 'a long password' }, https);
    const planted = new Visitor(first.baseUrl);
    planted.cookies.set('pwpush_session', owner.cookies.get('__Host-pwpush_session')!);
    expect((await planted.get('/users/token', https)).location).toBe('/users/sign_in');
  });

  it('locks an account, for the address that failed on it 10 times in a minute, on every replica (Redis), even for the right password', async () => {
    await first.service(UsersService).create('locked@example.com', 'the right password');
    for (let attempt = 0; attempt < 10; attempt++) {
      const app = attempt % 2 === 0 ? first : second;
      const failed = await new Visitor(app.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'locked@example.com', password: `wrong ${attempt}` });
      expect([attempt, failed.status]).toEqual([attempt, 401]);
    }
    const refused = await new Visitor(second.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'locked@example.com', password: 'the right password' });
    expect(refused.status).toBe(429);
    expect(refused.html).toMatch(/Too many failed sign-in attempts\. Try again in \d+ seconds\./);
    // Another account from the same address is not locked by it.
    const other = await new Visitor(first.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'replicas@example.com', password: 'a long password' });
    expect(other.status).toBe(303);
  });

  it('does not lock the owner out when another address fails on the account (10 a minute per account and address)', async () => {
    await first.service(UsersService).create('targeted@example.com', 'the owner password');
    const attacker = { 'x-forwarded-for': '198.51.100.66' };
    for (let attempt = 0; attempt < SIGN_IN_LIMITS.accountFromAddress; attempt++) {
      const failed = await new Visitor(first.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'targeted@example.com', password: `guess ${attempt}` }, attacker);
      expect([attempt, failed.status]).toEqual([attempt, 401]);
    }
    const attackerAgain = await new Visitor(second.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'targeted@example.com', password: 'the owner password' }, attacker);
    expect(attackerAgain.status).toBe(429);
    const owner = await new Visitor(second.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'targeted@example.com', password: 'the owner password' }, { 'x-forwarded-for': '192.0.2.10' });
    expect([owner.status, owner.location]).toEqual([303, '/users/token']);
  });

  it('stops a distributed attack on one account at 100 failures a minute, from any address', async () => {
    await first.service(UsersService).create('distributed@example.com', 'the owner password');
    const addresses = SIGN_IN_LIMITS.account / SIGN_IN_LIMITS.accountFromAddress;
    await Promise.all(
      Array.from({ length: addresses }, async (_, a) => {
        const from = { 'x-forwarded-for': `198.51.100.${100 + a}` };
        for (let attempt = 0; attempt < SIGN_IN_LIMITS.accountFromAddress; attempt++) {
          const failed = await new Visitor(a % 2 ? first.baseUrl : second.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'distributed@example.com', password: `guess ${attempt}` }, from);
          expect([a, attempt, failed.status]).toEqual([a, attempt, 401]);
        }
      }),
    );
    const owner = await new Visitor(first.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'distributed@example.com', password: 'the owner password' }, { 'x-forwarded-for': '192.0.2.20' });
    expect(owner.status).toBe(429);
    // Other accounts, from those very addresses, are not affected by it.
    const other = await new Visitor(first.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'replicas@example.com', password: 'a long password' }, { 'x-forwarded-for': '198.51.100.100' });
    expect(other.status).toBe(303);
  });

  it('limits failed sign-ins from one address across accounts (30 a minute)', async () => {
    const from = { 'x-forwarded-for': '203.0.113.9' };
    for (let attempt = 0; attempt < 30; attempt++) {
      const failed = await new Visitor(first.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: `nobody${attempt}@example.com`, password: 'guess' }, from);
      expect([attempt, failed.status]).toEqual([attempt, 401]);
    }
    const refused = await new Visitor(second.baseUrl).submit('/users/sign_in', '/users/sign_in', { email: 'replicas@example.com', password: 'a long password' }, from);
    expect(refused.status).toBe(429);
  });

  it('serves the recipient page while anonymous API use is off, and never without CSRF', async () => {
    const owner = await first.createUser(`owner-${randomBytes(3).toString('hex')}@example.com`);
    const created = await fetch(`${first.baseUrl}/api/v2/pushes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
      body: JSON.stringify({ push: { payload: 'for the recipient', passphrase: 'pw' } }),
    });
    const { url_token } = (await created.json()) as { url_token: string };
    expect((await fetch(`${first.baseUrl}/api/v2/pushes/${url_token}`)).status).toBe(401);

    const visitor = new Visitor(second.baseUrl);
    const page = await visitor.get(`/p/${url_token}/r`);
    expect([page.status, page.html]).toEqual([200, expect.stringContaining('<label for="passphrase">Passphrase</label>')]);
    const forged = await new Visitor(second.baseUrl).submit(`/p/NoSuchTokenNoSuchToken12`, `/p/${url_token}/access`, { passphrase: 'pw', _csrf: 'forged' });
    expect(forged.status).toBe(403);
    const revealed = await visitor.submit(`/p/${url_token}/r`, `/p/${url_token}/access`, { passphrase: 'pw' });
    expect([revealed.status, revealed.html]).toEqual([200, expect.stringContaining('>for the recipient</textarea>')]);
  });

  it('redirects the reference\'s /f/ and /r/ links to /p/', async () => {
    for (const prefixPath of ['f', 'r']) {
      const response = await fetch(`${first.baseUrl}/${prefixPath}/SomeToken123/r`, { redirect: 'manual' });
      expect([response.status, response.headers.get('location')]).toEqual([301, '/p/SomeToken123/r']);
    }
  });
});

describe('the push form with PWP__URL__REQUIRE_ACCOUNT=true', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ PWP__URL__REQUIRE_ACCOUNT: 'true' });
    await app.service(UsersService).create('url-form@example.com', 'a long password');
  });
  afterAll(() => app.close({ drop: true }));

  const urlPush = { 'push[kind]': 'url', 'push[payload]': 'https://login.example.com/' };

  it('offers anonymous visitors no URL form and refuses their URL pushes (401), keeping the other kinds', async () => {
    const visitor = new Visitor(app.baseUrl);
    const form = await visitor.get('/p/new?kind=url');
    expect(form.html).toContain('Sign in to send URLs.');
    expect(form.html).not.toContain('name="push[payload]"');
    const refused = await visitor.submit('/p/new', '/p/new?kind=url', urlPush);
    expect(refused.status).toBe(401);
    expect((await visitor.submit('/p/new', '/p/new', { 'push[payload]': 'text is fine' })).status).toBe(303);
    expect(Number((await app.query("SELECT COUNT(*) AS n FROM pushes WHERE kind = 'url'"))[0].n)).toBe(0);
  });

  it('lets a signed-in person make URL pushes', async () => {
    const visitor = new Visitor(app.baseUrl);
    await visitor.submit('/users/sign_in', '/users/sign_in', { email: 'url-form@example.com', password: 'a long password' });
    expect((await visitor.get('/p/new?kind=url')).html).toContain('name="push[payload]"');
    const created = await visitor.submit('/p/new?kind=url', '/p/new?kind=url', urlPush);
    expect([created.status, created.location]).toEqual([303, expect.stringMatching(/^\/p\/[\w-]+\/preview$/)]);
  });
});
