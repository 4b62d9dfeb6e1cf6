import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UsersService } from '@app/auth';
import { checkPage, launchBrowser } from '../support/browser';
import { startTestApp, type TestApp } from '../support/test-app';
import { totpCode } from '../support/two-factor';

const PASSWORD = 'a long password';

/**
 * Two-factor authentication as a person meets it in a browser: the setup with a code computed
 * from the key the page prints (as an authenticator app would), sign-in with a code, a replayed
 * code, a recovery code, five wrong codes; and PWP__REQUIRE_MFA on the pages and on the API.
 * @one-engine What a browser adds is the same on every engine; setup, codes, recovery codes and
 * PWP__REQUIRE_MFA run on each engine in two-factor.e2e-spec.ts.
 */
describe('two-factor authentication in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app.close({ drop: true });
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    return context.newPage();
  }

  /** A new browser through the password form; with two-factor on, it then shows the code form. */
  async function passPassword(baseUrl: string, email: string): Promise<Page> {
    const page = await newPage();
    await page.goto(`${baseUrl}/users/sign_in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page;
  }

  async function enterCode(page: Page, code: string): Promise<void> {
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
  }

  /** Turns two-factor on from its page, as a person does; returns the key the page printed and the recovery codes. */
  async function setUp(page: Page, baseUrl: string, now: () => number): Promise<{ secret: string; codes: string[] }> {
    await page.goto(`${baseUrl}/user/two_factor`);
    await page.getByRole('link', { name: 'Turn on two-factor authentication' }).click();
    await page.waitForURL(`${baseUrl}/user/two_factor/backup_codes`);
    const codes = await page.locator('ul.recovery-codes code').allTextContents();
    expect(codes).toHaveLength(16);
    await checkPage(page, 'two-factor-recovery-codes');
    await page.getByRole('link', { name: 'I saved them: now add the authenticator app' }).click();
    await expect(page.getByRole('img', { name: 'QR code for your authenticator app' }).isVisible()).resolves.toBe(true);
    await checkPage(page, 'two-factor-verify');
    const secret = (await page.locator('#totp-secret').textContent())!;
    await page.getByLabel('Code from the app').fill(totpCode(secret, now() - 600_000));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^That code is not right\./);
    await page.getByLabel('Code from the app').fill(totpCode(secret, now()));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Two-factor authentication is on. Keep your recovery codes safe.');
    await checkPage(page, 'two-factor-on');
    // The account page has the same section.
    await page.goto(`${baseUrl}/users/edit`);
    await expect(page.getByRole('heading', { name: 'Two-factor authentication', level: 2 }).count()).resolves.toBe(1);
    await expect(page.getByText('Unused recovery codes: 16.').count()).resolves.toBe(1);
    await checkPage(page, 'account-two-factor-on');
    return { secret, codes };
  }

  it("sets up with the page's key, then signs in with a code once, takes a recovery code once, and ends a sign-in after 5 wrong codes", async () => {
    await app.service(UsersService).create('browser-2fa@example.com', PASSWORD);
    const first = await passPassword(app.baseUrl, 'browser-2fa@example.com');
    expect(first.url()).toBe(`${app.baseUrl}/users/token`);
    const { secret, codes } = await setUp(first, app.baseUrl, () => app.clock.now());

    app.clock.advance(30_000);
    const code = totpCode(secret, app.clock.now());
    const signIn = await passPassword(app.baseUrl, 'browser-2fa@example.com');
    await expect(signIn.locator('h1').textContent()).resolves.toBe('Enter your code');
    await checkPage(signIn, 'two-factor-sign-in');
    await enterCode(signIn, code);
    expect(signIn.url()).toBe(`${app.baseUrl}/users/token`);
    await expect(signIn.getByText('Signed in as browser-2fa@example.com').count()).resolves.toBe(1);

    const replay = await passPassword(app.baseUrl, 'browser-2fa@example.com');
    await enterCode(replay, code);
    await expect(replay.getByRole('alert').textContent()).resolves.toBe('That code is not right. Tries left: 4.');
    await enterCode(replay, codes[0]);
    expect(replay.url()).toBe(`${app.baseUrl}/users/token`);
    const reused = await passPassword(app.baseUrl, 'browser-2fa@example.com');
    await enterCode(reused, codes[0]);
    await expect(reused.getByRole('alert').textContent()).resolves.toBe('That code is not right. Tries left: 4.');

    const guessing = await passPassword(app.baseUrl, 'browser-2fa@example.com');
    for (let left = 4; left >= 1; left--) {
      await enterCode(guessing, '123456');
      await expect(guessing.getByRole('alert').textContent()).resolves.toBe(`That code is not right. Tries left: ${left}.`);
    }
    await enterCode(guessing, '654321');
    await expect(guessing.locator('h1').textContent()).resolves.toBe('Sign in again');
    await expect(guessing.getByRole('alert').textContent()).resolves.toBe('Too many wrong codes. Sign in again with your password.');
    await checkPage(guessing, 'two-factor-too-many');
    await guessing.getByRole('link', { name: 'Sign in' }).click();
    expect(guessing.url()).toBe(`${app.baseUrl}/users/sign_in`);
  });

  describe('with PWP__REQUIRE_MFA', () => {
    let required: TestApp;

    beforeAll(async () => {
      required = await startTestApp({ PWP__REQUIRE_MFA: 'true' });
    });
    afterAll(() => required.close({ drop: true }));

    it('sends a person to the setup from every page and refuses their token (403) until two-factor is on', async () => {
      const { api_token: token } = await required.service(UsersService).create('required-2fa@example.com', PASSWORD);
      const api = () => fetch(`${required.baseUrl}/api/v2/pushes/active`, { headers: { authorization: `Bearer ${token}` } });
      const refused = await api();
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toMatch(/^Two-factor authentication is required\. /);

      const page = await passPassword(required.baseUrl, 'required-2fa@example.com');
      await page.waitForURL(`${required.baseUrl}/user/two_factor/backup_codes`);
      await page.goto(`${required.baseUrl}/dashboard/active`);
      await page.waitForURL(`${required.baseUrl}/user/two_factor/backup_codes`);
      await page.goto(`${required.baseUrl}/user/two_factor`);
      await expect(page.getByText('Your administrator requires two-factor authentication. Turn it on').count()).resolves.toBe(1);
      await checkPage(page, 'two-factor-required');

      await setUp(page, required.baseUrl, () => required.clock.now());
      await expect(
        page.getByText('Your administrator requires two-factor authentication, so it cannot be turned off.').count(),
      ).resolves.toBe(1);
      await expect(page.getByRole('button', { name: 'Turn off two-factor authentication' }).count()).resolves.toBe(0);
      await page.goto(`${required.baseUrl}/dashboard/active`);
      await page.waitForURL(`${required.baseUrl}/dashboard/active`);
      expect((await api()).status).toBe(200);
    });
  });
});
