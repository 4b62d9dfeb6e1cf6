import { generateKeyPairSync } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UsersService } from '@app/auth';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { freePort } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';
import { checkPage, launchBrowser } from '../support/browser';

const BUTTON = 'Sign in with Example ID';
const CALLBACK = '/users/auth/oidc/callback';
const FAILED = 'Signing in with your identity provider did not complete: its answer could not be verified, or the sign-in took too long. Try again.';

/**
 * Single sign-on in a real browser against a real OpenID Provider (oidc-provider, started by the
 * test): sign-in, provisioning and linking, the tokens page, sign-out with RP-initiated logout,
 * and each refusal (unverified email, other domain, an email beyond ASCII, tampered state, replayed code, an ID token
 * with another nonce, for another audience or expired, a disabled user), each without a session.
 * A second app signs in with private_key_jwt and has the password form turned off.
 * @one-engine What a browser adds (the provider's redirects followed) is the same on every engine;
 * provisioning, linking and each refusal run on each engine in single-sign-on.e2e-spec.ts.
 */
describe('single sign-on in a browser', () => {
  let provider: TestOidcProvider;
  let app: TestApp;
  let ssoOnly: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const [appPort, ssoOnlyPort] = [await freePort(), await freePort()];
    const bases = [appPort, ssoOnlyPort].map((port) => `http://127.0.0.1:${port}`);
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    provider = await startOidcProvider({
      redirectUris: bases.map((base) => `${base}${CALLBACK}`),
      postLogoutUris: bases.map((base) => `${base}/users/sign_in`),
      clientJwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'pwpush-test-key', alg: 'ES256', use: 'sig' }] },
    });
    const oidc = { PWP__OIDC__ISSUER: provider.issuer, PWP__OIDC__BUTTON_LABEL: BUTTON };
    app = await startTestApp(
      { ...oidc, PWP__OIDC__CLIENT_ID: provider.clientId, PWP__OIDC__CLIENT_SECRET: provider.clientSecret, PWP__OIDC__ALLOWED_EMAIL_DOMAINS: 'example.com' },
      undefined,
      { port: appPort },
    );
    // On the same database: passport's strategies are global to the process, so the API token
    // check of both apps is the one of the app started last.
    ssoOnly = await startTestApp(
      {
        ...oidc,
        PWP__OIDC__CLIENT_ID: 'pwpush-jwt',
        PWP__OIDC__PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        PWP__OIDC__PRIVATE_KEY_ID: 'pwpush-test-key',
        PWP__OIDC__PASSWORD_SIGN_IN: 'false',
      },
      app.database,
      { port: ssoOnlyPort },
    );
    // The administrator made at the first run (here by the CLI's way): with password sign-in on, the pages lead there until an account exists.
    await app.service(UsersService).create('operator@example.com', 'a long password', { admin: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await ssoOnly?.close();
    await app?.close({ drop: true });
    await provider?.stop();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  /** Presses the button, signs in at the provider (when it asks) as `account`, and waits to be back. */
  async function signIn(account: string, on: TestApp = app): Promise<void> {
    await page.goto(`${on.baseUrl}/users/sign_in`);
    await page.getByRole('button', { name: BUTTON }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer) || url.href.startsWith(on.baseUrl));
    if (page.url().startsWith(`${provider.issuer}/interaction/`)) {
      await page.locator('input[name="login"]').fill(account);
      await page.locator('input[name="password"]').fill('any password');
      await page.locator('button.login-submit').click();
    }
    await page.waitForURL((url) => url.href.startsWith(`${on.baseUrl}/users/`) && !url.pathname.endsWith('/users/auth/oidc'));
  }

  /** No session: no session cookie, and /users/token sends the browser to sign in. */
  async function expectNoSession(on: TestApp = app): Promise<void> {
    expect((await context.cookies()).filter((cookie) => cookie.name === 'pwpush_session' && cookie.value !== '')).toEqual([]);
    await page.goto(`${on.baseUrl}/users/token`);
    await page.waitForURL(`${on.baseUrl}/users/sign_in`);
  }

  async function expectRefused(text: string, on: TestApp = app): Promise<void> {
    expect(page.url()).toContain(`${on.baseUrl}${CALLBACK}`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Not signed in');
    await expect(page.getByRole('alert').textContent()).resolves.toBe(text);
    await expectNoSession(on);
  }

  const active = (token: string) => fetch(`${app.baseUrl}/api/v2/pushes/active`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
  const userRow = async (email: string) =>
    (await app.query<{ id: number; oidc_issuer: string | null; oidc_subject: string | null }>('SELECT id, oidc_issuer, oidc_subject FROM users WHERE email = ?', [email]))[0];

  it('creates the user at the first sign-in, lands on the token page, issues a working token, signs out at the provider, and finds the same user again', async () => {
    await page.goto(`${app.baseUrl}/users/sign_in`);
    await checkPage(page, 'sso-sign-in');
    await signIn('alice');
    await page.waitForURL(`${app.baseUrl}/users/token`);
    await expect(page.locator('main > p').first().textContent()).resolves.toContain('Signed in as alice@example.com.');
    const created = await userRow('alice@example.com');
    expect(created).toMatchObject({ oidc_issuer: provider.issuer, oidc_subject: 'alice' });

    await page.getByLabel('Name').fill('laptop');
    await page.getByLabel('Expires').selectOption('30');
    await page.getByRole('button', { name: 'Issue token' }).click();
    const token = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
    expect(await active(token)).toBe(200);
    await expect(page.locator('tr', { hasText: 'laptop' }).locator('td').nth(2).textContent()).resolves.toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d [AP]M UTC$/);
    await checkPage(page, 'sso-tokens');

    // Sign-out ends the session here, then at the provider (RP-initiated logout), which sends the browser back.
    const [signOut] = await Promise.all([
      page.waitForResponse((response) => response.url() === `${app.baseUrl}/users/sign_out`),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    const logout = new URL(signOut.headers().location);
    expect(`${logout.origin}${logout.pathname}`).toBe(`${provider.issuer}/session/end`);
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${app.baseUrl}/users/sign_in`);
    expect(logout.searchParams.get('id_token_hint')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${app.baseUrl}/users/sign_in`);
    expect(await active(token)).toBe(200);

    await signIn('alice');
    await page.waitForURL(`${app.baseUrl}/users/token`);
    await expect(page.locator('td', { hasText: 'laptop' }).count()).resolves.toBe(1);
    expect(await userRow('alice@example.com')).toEqual(created);
    expect(await app.query('SELECT id FROM users WHERE oidc_subject = ?', ['alice'])).toHaveLength(1);
  });

  it('does not link an unverified email to an existing account', async () => {
    await app.service(UsersService).create('bob@example.com', 'bob password 1');
    await signIn('bob');
    await expectRefused('Your identity provider did not confirm that your email address is yours, so it cannot sign you in here. Ask your administrator.');
    await checkPage(page, 'sso-refused');
    expect(await userRow('bob@example.com')).toMatchObject({ oidc_issuer: null, oidc_subject: null });
  });

  it('refuses an email outside the allowed domains, creating nobody', async () => {
    await signIn('mallory');
    await expectRefused('Your email address is not in a domain allowed to sign in here.');
    expect(await userRow('mallory@elsewhere.test')).toBeUndefined();
  });

  it('refuses an email with a Kelvin sign for its k, linking it to kate@example.com no more than creating it, until its sub is an account', async () => {
    await app.service(UsersService).create('kate@example.com', 'kate password 1');
    await signIn('kelvin');
    await expectRefused(
      'Your email address has characters other than plain ASCII letters, digits and punctuation, so single sign-on cannot match it to an account here. Ask your administrator.',
    );
    expect(await userRow('kate@example.com')).toMatchObject({ oidc_issuer: null, oidc_subject: null });
    expect(await app.query('SELECT id FROM users WHERE oidc_subject = ?', ['kelvin'])).toEqual([]);

    // An account whose (issuer, sub) is this person's: they sign in, whatever their email looks like.
    await app.query('UPDATE users SET oidc_issuer = ?, oidc_subject = ? WHERE email = ?', [provider.issuer, 'kelvin', 'kate@example.com']);
    await signIn('kelvin');
    await page.waitForURL(`${app.baseUrl}/users/token`);
    await expect(page.locator('main > p').first().textContent()).resolves.toContain('Signed in as kate@example.com.');
  });

  /**
   * Signs in at the provider as `account` and returns the callback URL the provider sends the
   * browser to, without going there: the provider's redirects are followed by the context's own
   * requests (which share the browser's cookies), up to the one that leaves the provider.
   */
  async function callbackUrlFor(account: string): Promise<string> {
    await page.goto(`${app.baseUrl}/users/sign_in`);
    await page.getByRole('button', { name: BUTTON }).click();
    await page.waitForURL(`${provider.issuer}/interaction/**`);
    const action = new URL((await page.locator('form').getAttribute('action'))!, page.url()).href;
    let response = await context.request.post(action, { form: { prompt: 'login', login: account, password: 'any password' }, maxRedirects: 0 });
    while (response.headers().location?.startsWith(provider.issuer) || response.headers().location?.startsWith('/')) {
      response = await context.request.get(new URL(response.headers().location, provider.issuer).href, { maxRedirects: 0 });
    }
    expect(response.headers().location).toMatch(new RegExp(`^${app.baseUrl}${CALLBACK}\\?`));
    return response.headers().location;
  }

  it('refuses a callback whose state was tampered with', async () => {
    const callback = new URL(await callbackUrlFor('alice'));
    expect(callback.searchParams.get('code')).toBeTruthy();
    callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    await page.goto(callback.href);
    await expectRefused(FAILED);
  });

  it('refuses a replayed code, even with the sign-in cookie it came with', async () => {
    const callback = await callbackUrlFor('alice');
    const pending = (await context.cookies()).find((cookie) => cookie.name === 'pwpush_oidc')!.value;
    await page.goto(callback);
    await page.waitForURL(`${app.baseUrl}/users/token`);

    await context.close();
    context = await browser.newContext();
    page = await context.newPage();
    await context.addCookies([{ name: 'pwpush_oidc', value: pending, url: app.baseUrl }]);
    await page.goto(callback);
    await expectRefused(FAILED);
  });

  it.each([
    ['another nonce', 'nonce'],
    ['another audience', 'aud'],
    ['an expiry in the past', 'exp'],
  ] as const)('refuses an ID token with %s', async (_case, how) => {
    await provider.tamperNextIdToken(how);
    await signIn('alice');
    await expectRefused(FAILED);
  });

  it('has no password form with PWP__OIDC__PASSWORD_SIGN_IN=false, refuses its POST, and signs in with private_key_jwt', async () => {
    await page.goto(`${ssoOnly.baseUrl}/users/sign_in`);
    await expect(page.getByLabel('Password').count()).resolves.toBe(0);
    await checkPage(page, 'sso-only-sign-in');
    await ssoOnly.service(UsersService).create('carol@example.com', 'carol password 1');
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const post = await page.request.post(`${ssoOnly.baseUrl}/users/sign_in`, { form: { _csrf: csrf, email: 'carol@example.com', password: 'carol password 1' }, maxRedirects: 0 });
    expect(post.status()).toBe(403);
    expect(await post.text()).toContain('Signing in with a password is turned off here. Use single sign-on.');
    await expectNoSession(ssoOnly);

    await signIn('alice', ssoOnly);
    await page.waitForURL(`${ssoOnly.baseUrl}/users/token`);
  });

  it('refuses a disabled user, whose session and tokens stop working at once', async () => {
    await signIn('alice');
    await page.getByLabel('Name').fill('ci');
    await page.getByRole('button', { name: 'Issue token' }).click();
    const token = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
    expect(await active(token)).toBe(200);

    await app.service(UsersService).disable('alice@example.com');
    expect(await active(token)).toBe(401);
    await page.goto(`${app.baseUrl}/users/token`);
    await page.waitForURL(`${app.baseUrl}/users/sign_in`);
    // The ended session's cookie goes, so that what follows shows the refusal starts none.
    await context.clearCookies({ name: 'pwpush_session' });
    await signIn('alice');
    await expectRefused('This account is disabled. Ask your administrator.');
  });
});
