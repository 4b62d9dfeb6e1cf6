import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsersService } from '@app/auth';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { signInWithProvider } from '../support/oidc-sign-in';
import { freePort } from '../support/helpers';
import { startServer } from '../support/server-process';
import { startTestApp, TEST_MASTER_KEY, type TestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-database';

const UNAVAILABLE = 'Single sign-on is unavailable right now: this service cannot reach the identity provider. Try again in a minute.';

/** What the sign-in page offers, read from its HTML. */
async function signInPage(baseUrl: string): Promise<{ status: number; button: boolean; unavailable: boolean; password: boolean; csrf: string; cookie: string }> {
  const response = await fetch(`${baseUrl}/users/sign_in`);
  const html = await response.text();
  return {
    status: response.status,
    button: html.includes('action="/users/auth/oidc"'),
    unavailable: html.includes(UNAVAILABLE),
    password: html.includes('name="password"'),
    csrf: /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '',
    cookie: (response.headers.get('set-cookie') ?? '').split(';')[0],
  };
}

/**
 * Single sign-on when the provider cannot be reached: the service starts and serves its API, the
 * sign-in page says single sign-on is unavailable (with the password form still there), the log
 * says which setting to check in one line, and once the provider answers, sign-in offers it again
 * without a restart.
 */
describe('single sign-on with an unreachable provider', () => {
  let app: TestApp | undefined;
  let provider: TestOidcProvider | undefined;

  afterEach(async () => {
    await app?.close({ drop: true });
    await provider?.stop();
    app = provider = undefined;
  });

  it('keeps serving, says so on the sign-in page, and offers it again once the provider answers', async () => {
    const port = await freePort();
    provider = await startOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/users/auth/oidc/callback`], postLogoutUris: [] });
    const issuer = provider.issuer;
    await provider.stop();
    app = await startTestApp({ PWP__OIDC__ISSUER: issuer, PWP__OIDC__CLIENT_ID: 'pwpush', PWP__OIDC__CLIENT_SECRET: 'pwpush-test-secret' }, undefined, { port });
    // An account exists, so the sign-in page is not the first run's.
    await app.createUser('someone@example.com');

    expect((await fetch(`${app.baseUrl}/api/v2/version`)).status).toBe(200);
    const page = await signInPage(app.baseUrl);
    expect(page).toMatchObject({ status: 200, button: false, unavailable: true, password: true });
    const pressed = await fetch(`${app.baseUrl}/users/auth/oidc`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      body: new URLSearchParams({ _csrf: page.csrf }),
      redirect: 'manual',
    });
    expect(pressed.status).toBe(503);
    expect(await pressed.text()).toContain(UNAVAILABLE);

    // The provider comes up on the same address; a sign-in page after the retry interval finds it.
    provider = await startOidcProvider({ redirectUris: [`${app.baseUrl}/users/auth/oidc/callback`], postLogoutUris: [], port: Number(new URL(issuer).port) });
    app.clock.advance(31_000);
    expect(await signInPage(app.baseUrl)).toMatchObject({ button: true, unavailable: false });
  });

  it('logs one line naming PWP__OIDC__ISSUER when discovery fails at start-up, never the client secret', async () => {
    const database = await createTestDatabase('migrated');
    const closed = await freePort();
    const server = await startServer({
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-sso-')),
      PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
      PWP__OIDC__ISSUER: `http://127.0.0.1:${closed}`,
      PWP__OIDC__CLIENT_ID: 'pwpush',
      PWP__OIDC__CLIENT_SECRET: 'very-secret-client-secret',
    });
    try {
      expect((await fetch(`${server.url}/api/v2/version`)).status).toBe(200);
      for (let waited = 0; !server.output().includes('PWP__OIDC__ISSUER') && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      const lines = server.output().split('\n').filter((line) => line.includes('PWP__OIDC__ISSUER'));
      expect(lines).toHaveLength(1);
      const { level, msg } = JSON.parse(lines[0]) as { level: number; msg: string };
      expect(level).toBe(50);
      expect(msg).toMatch(new RegExp(`^Single sign-on is unavailable: the OpenID Provider's discovery at http://127\\.0\\.0\\.1:${closed}/\\.well-known/openid-configuration failed \\(.*ECONNREFUSED.*\\)\\. Check PWP__OIDC__ISSUER`));
      expect(server.output()).not.toContain('very-secret-client-secret');
    } finally {
      await server.stop();
      await database.drop();
    }
  });
});

/**
 * Linking by email compares addresses as they are, their ASCII letters' case aside: the provider
 * vouches for `\u212Aate@example.com` (a Kelvin sign for the k), which String's toLowerCase, and
 * MySQL's collation, take for `kate@example.com`. Against the real provider and the real database
 * (the collation is the engine's): not linked to kate's account, not provisioned, refused with a
 * page that says why; with the provider's `sub` already an account's, the person signs in.
 */
describe('single sign-on with an email beyond ASCII', () => {
  const NON_ASCII = 'Your email address has characters other than plain ASCII letters, digits and punctuation, so single sign-on cannot match it to an account here. Ask your administrator.';
  let provider: TestOidcProvider;
  let app: TestApp;

  beforeAll(async () => {
    const port = await freePort();
    provider = await startOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/users/auth/oidc/callback`], postLogoutUris: [] });
    app = await startTestApp(
      { PWP__OIDC__ISSUER: provider.issuer, PWP__OIDC__CLIENT_ID: provider.clientId, PWP__OIDC__CLIENT_SECRET: provider.clientSecret, PWP__OIDC__ALLOWED_EMAIL_DOMAINS: 'example.com' },
      undefined,
      { port },
    );
  });
  afterAll(async () => {
    await app?.close({ drop: true });
    await provider?.stop();
  });

  const users = () => app.query<{ email: string; oidc_subject: string | null }>('SELECT email, oidc_subject FROM users ORDER BY id');

  it('neither links the Kelvin-sign address to kate@example.com nor creates an account for it, and says why', async () => {
    await app.service(UsersService).create('kate@example.com', 'kate password 1');
    expect(await signInWithProvider(app.baseUrl, 'kelvin')).toEqual({ status: 403, location: null, message: NON_ASCII, session: false });
    expect(await users()).toEqual([{ email: 'kate@example.com', oidc_subject: null }]);
    // The password sign-in finds no account under that address either (on MySQL, the collation would).
    const page = await fetch(`${app.baseUrl}/users/sign_in`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0];
    const post = await fetch(`${app.baseUrl}/users/sign_in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, email: '\u212Aate@example.com', password: 'kate password 1' }),
    });
    expect(post.status).toBe(401);
  });

  it('still links and signs in an ASCII address', async () => {
    expect(await signInWithProvider(app.baseUrl, 'alice')).toMatchObject({ status: 303, location: '/users/token', session: true });
    expect((await users()).find((user) => user.email === 'alice@example.com')).toEqual({ email: 'alice@example.com', oidc_subject: 'alice' });
  });

  it('signs in the same person once their (issuer, sub) is an account', async () => {
    await app.query('UPDATE users SET oidc_issuer = ?, oidc_subject = ? WHERE email = ?', [provider.issuer, 'kelvin', 'kate@example.com']);
    expect(await signInWithProvider(app.baseUrl, 'kelvin')).toMatchObject({ status: 303, location: '/users/token', session: true });
    expect(await users()).toHaveLength(2);
  });
});
