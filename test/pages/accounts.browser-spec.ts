import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { UnseenWork, UsersService } from '@app/auth';
import { HOUR_MS, MINUTE_MS } from '@app/common';
import { NotificationWorker } from '@app/notifications';
import { checkPage, launchBrowser, WatchedPages } from '../support/browser';
import { freePort } from '../support/helpers';
import { type Mailpit, startMailpit } from '../support/mailpit';
import { startServer, waitForOutput } from '../support/server-process';
import { startTestApp, TEST_MASTER_KEY, type TestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-database';

const PASSWORD = 'a long password';

/**
 * People running their own accounts in a real browser: sign-up (on, off, the address pattern),
 * each account mail read from Mailpit with its link followed by the browser (confirmation only by
 * the button behind it, a reset link used once, unlock), the lockout, the first run with the code
 * from the server's log, the account page's changes, and sessions timing out as the clock moves.
 * @one-engine What a browser adds (mails' links followed, forms, looks) is the same on every engine;
 * each account flow's reads and writes run on each engine in accounts.e2e-spec.ts.
 */
describe('accounts in a browser', () => {
  let browser: Browser;
  let pages: WatchedPages;

  beforeAll(async () => {
    browser = await launchBrowser();
    pages = new WatchedPages(browser);
  });
  afterAll(() => browser?.close());
  afterEach(async () => {
    // The refusals the tests ask for (401, 404, 422) are logged as failed loads; nothing else may be.
    expect(await pages.closeAll()).toEqual([]);
  });

  const newPage = (): Promise<Page> => pages.open();

  async function signIn(page: Page, baseUrl: string, email: string, password: string, remember = false): Promise<void> {
    await page.goto(`${baseUrl}/users/sign_in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    if (remember) await page.getByLabel('Keep me signed in on this device for a week').check();
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const heading = (page: Page) => page.locator('h1').textContent();

  describe('with account emails', () => {
    let app: TestApp;
    let mailpit: Mailpit;

    beforeAll(async () => {
      mailpit = await startMailpit();
      const port = await freePort();
      app = await startTestApp(
        {
          ...mailpit.env,
          PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true',
          PWP__HOST_DOMAIN: `127.0.0.1:${port}`,
          PWP__HOST_PROTOCOL: 'http',
          PWP__SIGNUP_EMAIL_REGEXP: String.raw`\A[^@\s]+@example\.(com|org)\z`,
        },
        undefined,
        { port },
      );
      await app.service(UsersService).create('admin@example.com', PASSWORD, { admin: true });
    });
    afterAll(async () => {
      await app.close({ drop: true });
      await mailpit.stop();
    });

    /** Sends what waits in the outbox, then the link of the newest mail to `to` with that subject (or its text, for a notice). */
    async function mail(to: string, subject: string): Promise<{ link?: string; text: string }> {
      // Account mails are recorded after the form's answer (UnseenWork).
      await app.service(UnseenWork).settled();
      await app.service(NotificationWorker).round();
      const deadline = Date.now() + 5000;
      for (;;) {
        const found = (await mailpit.messages()).find((message) => message.To[0]?.Address === to && message.Subject === subject);
        if (found) {
          const { Text } = await mailpit.message(found.ID);
          return { link: /(http:\/\/\S+)/.exec(Text)?.[1], text: Text };
        }
        if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${to}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it('signs up, refuses an address the pattern does not admit, and confirms only by the button behind the mailed link', async () => {
      const page = await newPage();
      await page.goto(`${app.baseUrl}/users/sign_in`);
      await page.getByRole('link', { name: 'Make an account' }).click();
      await checkPage(page, 'sign-up');
      await page.getByLabel('Email').fill('someone@gmail.com');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Password again').fill(PASSWORD);
      await page.getByRole('button', { name: 'Make the account' }).click();
      await expect(page.locator('#email-error').textContent()).resolves.toBe('This is not an email address that can be used here.');
      await page.getByLabel('Email').fill('new.person@example.org');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Password again').fill(PASSWORD);
      await page.getByRole('button', { name: 'Make the account' }).click();
      await expect(heading(page)).resolves.toBe('Check your mail');

      // Not yet confirmed: the right password says so (and only the right one).
      await signIn(page, app.baseUrl, 'new.person@example.org', PASSWORD);
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^Confirm your email address first/);

      const { link } = await mail('new.person@example.org', 'Confirm your email address');
      expect(link).toMatch(new RegExp(`^${app.baseUrl}/users/confirmation\\?confirmation_token=[\\w-]{43}$`));
      await page.goto(link!);
      await checkPage(page, 'confirm');
      const confirmed = () => app.query<{ confirmed_at: unknown }>("SELECT confirmed_at FROM users WHERE email = 'new.person@example.org'");
      expect((await confirmed())[0].confirmed_at).toBeNull();
      await page.getByRole('button', { name: 'Confirm my address' }).click();
      await expect(heading(page)).resolves.toBe('Address confirmed');
      expect((await confirmed())[0].confirmed_at).not.toBeNull();
      await page.goto(link!);
      await expect(heading(page)).resolves.toBe('This link does not work');

      await signIn(page, app.baseUrl, 'new.person@example.org', PASSWORD);
      await page.waitForURL(`${app.baseUrl}/users/token`);
    });

    it('resets a forgotten password by the mailed link, once, and says the password changed', async () => {
      await app.service(UsersService).create('forgetful@example.com', PASSWORD);
      const page = await newPage();
      await page.goto(`${app.baseUrl}/users/sign_in`);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await checkPage(page, 'password-new');
      await page.getByLabel('Email').fill('forgetful@example.com');
      await page.getByRole('button', { name: 'Send the link' }).click();
      await expect(heading(page)).resolves.toBe('Check your mail');
      const { link } = await mail('forgetful@example.com', 'Choose a new password');
      await page.goto(link!);
      await checkPage(page, 'password-edit');
      await page.getByLabel('New password').fill('a brand new password');
      await page.getByLabel('Password again').fill('a brand new password');
      await page.getByRole('button', { name: 'Set the password' }).click();
      await page.waitForURL(`${app.baseUrl}/users/token`);
      await expect(mail('forgetful@example.com', 'Your password was changed')).resolves.toMatchObject({ link: undefined });

      const again = await newPage();
      await again.goto(link!);
      await expect(heading(again)).resolves.toBe('This link does not work');
      await signIn(again, app.baseUrl, 'forgetful@example.com', PASSWORD);
      await expect(again.getByRole('alert').textContent()).resolves.toBe('Incorrect email or password.');
      await signIn(again, app.baseUrl, 'forgetful@example.com', 'a brand new password');
      expect(again.url()).toBe(`${app.baseUrl}/users/token`);
    });

    it('locks the account after 10 failed sign-ins, mails the unlock link, and unlocks by its button', async () => {
      await app.service(UsersService).create('guessed@example.com', PASSWORD);
      const page = await newPage();
      for (let n = 0; n < 10; n++) await signIn(page, app.baseUrl, 'guessed@example.com', `wrong guess ${n}!`);
      // The failures are counted after each answer (UnseenWork): the 10th is counted before the next try.
      await app.service(UnseenWork).settled();
      // Past the per-minute sign-in limit: the lockout alone now keeps the right password out.
      app.clock.advance(MINUTE_MS + 1000);
      await signIn(page, app.baseUrl, 'guessed@example.com', PASSWORD);
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Incorrect email or password.');

      const { link } = await mail('guessed@example.com', 'Your account is locked');
      await page.goto(link!);
      await checkPage(page, 'unlock');
      await page.getByRole('button', { name: 'Unlock my account' }).click();
      await expect(heading(page)).resolves.toBe('Account unlocked');
      await signIn(page, app.baseUrl, 'guessed@example.com', PASSWORD);
      await page.waitForURL(`${app.baseUrl}/users/token`);
    });

    it('changes the address (after its confirmation), the password (ending other sessions), the language, and deletes the account', async () => {
      const { api_token: token } = await app.service(UsersService).create('mover@example.com', PASSWORD);
      const push = (await (await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"push":{"payload":"mine"}}' })).json()) as { url_token: string };
      const page = await newPage();
      const other = await newPage();
      await signIn(page, app.baseUrl, 'mover@example.com', PASSWORD);
      await signIn(other, app.baseUrl, 'mover@example.com', PASSWORD);
      await page.getByRole('link', { name: 'Your account' }).click();
      await checkPage(page, 'account');

      await page.getByLabel('New address').fill('moved@example.com');
      await page.locator('#email_current_password').fill('not my password');
      await page.getByRole('button', { name: 'Change the address' }).click();
      await expect(page.locator('#email_current_password-error').textContent()).resolves.toBe('That is not your current password.');
      await page.locator('#email_current_password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Change the address' }).click();
      await expect(page.getByRole('status').first().textContent()).resolves.toMatch(/^We mailed a link to the new address/);
      await expect(page.locator('main').textContent()).resolves.toContain('moved@example.com waits for its confirmation');
      const { link } = await mail('moved@example.com', 'Confirm your email address');
      await page.goto(link!);
      await page.getByRole('button', { name: 'Confirm my address' }).click();
      await expect(heading(page)).resolves.toBe('Address confirmed');
      await expect(mail('mover@example.com', 'Your email address was changed')).resolves.toMatchObject({ text: expect.stringContaining('moved@example.com') });
      await page.goto(`${app.baseUrl}/users/edit`);
      await expect(page.locator('main').textContent()).resolves.toContain('Your address is moved@example.com.');

      await page.locator('#current_password').fill(PASSWORD);
      await page.getByLabel('New password').fill('another long password');
      await page.getByLabel('Password again').fill('another long password');
      await page.getByRole('button', { name: 'Change the password' }).click();
      await expect(page.getByRole('status').first().textContent()).resolves.toBe('Your password is changed. Your other sessions have ended.');
      await other.goto(`${app.baseUrl}/users/token`);
      expect(other.url()).toBe(`${app.baseUrl}/users/sign_in`);
      await mail('moved@example.com', 'Your password was changed');

      await page.getByLabel('Preferred language').selectOption('de');
      await page.getByRole('button', { name: 'Save the language' }).click();
      await expect(page.getByLabel('Preferred language').inputValue()).resolves.toBe('de');
      expect(await app.query("SELECT preferred_language FROM users WHERE email = 'moved@example.com'")).toEqual([{ preferred_language: 'de' }]);

      // From the next page on, the account speaks the language chosen.
      await page.locator('#delete_password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Delete my account' }).click();
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
      await expect(page.locator('#delete_password-error').textContent()).resolves.toBe('Das ist nicht Ihr aktuelles Passwort.');
      await page.locator('#delete_password').fill('another long password');
      await page.getByRole('button', { name: 'Mein Konto löschen' }).click();
      await expect(heading(page)).resolves.toBe('Konto gelöscht');
      expect(await app.query("SELECT id FROM users WHERE email = 'moved@example.com'")).toEqual([]);
      expect((await fetch(`${app.baseUrl}/api/v2/pushes/${push.url_token}`)).status).toBe(404);
      expect((await fetch(`${app.baseUrl}/api/v2/pushes/active`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
      await page.goto(`${app.baseUrl}/users/token`);
      await page.waitForURL(`${app.baseUrl}/users/sign_in`);
    });
  });

  describe('without account emails', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp();
      await app.service(UsersService).create('someone@example.com', PASSWORD);
    });
    afterAll(() => app.close({ drop: true }));

    it('signs up and in at once, ends an idle session after the timeout as the clock moves, and keeps a remembered one', async () => {
      const page = await newPage();
      await page.goto(`${app.baseUrl}/users/sign_up`);
      await page.getByLabel('Email').fill('quick@example.com');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Password again').fill(PASSWORD);
      await page.getByRole('button', { name: 'Make the account' }).click();
      await page.waitForURL(`${app.baseUrl}/users/token`);
      await expect(page.locator('main').textContent()).resolves.toContain('Signed in as quick@example.com');

      // Used within the timeout, the session lives on; idle past it, it is over.
      app.clock.advance(HOUR_MS + 30 * MINUTE_MS);
      await page.reload();
      await page.waitForURL(`${app.baseUrl}/users/token`);
      app.clock.advance(2 * HOUR_MS + MINUTE_MS);
      await page.reload();
      await page.waitForURL(`${app.baseUrl}/users/sign_in`);

      await signIn(page, app.baseUrl, 'quick@example.com', PASSWORD, true);
      const [cookie] = (await page.context().cookies()).filter((entry) => entry.name === 'pwpush_session');
      expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(6 * 24 * HOUR_MS);
      app.clock.advance(5 * 24 * HOUR_MS);
      await page.goto(`${app.baseUrl}/users/token`);
      await page.waitForURL(`${app.baseUrl}/users/token`);
      app.clock.advance(2 * 24 * HOUR_MS + MINUTE_MS);
      await page.reload();
      await page.waitForURL(`${app.baseUrl}/users/sign_in`);
    });
  });

  it('has no sign-up with PWP__DISABLE_SIGNUPS: the page is not found and nothing links to it', async () => {
    const app = await startTestApp({ PWP__DISABLE_SIGNUPS: 'true' });
    try {
      await app.service(UsersService).create('someone@example.com', PASSWORD);
      const page = await newPage();
      await page.goto(`${app.baseUrl}/users/sign_in`);
      await expect(page.getByRole('link', { name: 'Make an account' }).count()).resolves.toBe(0);
      const answer = await page.goto(`${app.baseUrl}/users/sign_up`);
      expect(answer!.status()).toBe(404);
      await expect(heading(page)).resolves.toBe('Not found');
    } finally {
      await app.close({ drop: true });
    }
  });

  it('leads to the first run while no account exists, and makes the administrator with the boot code from the log', async () => {
    const database = await createTestDatabase('migrated');
    const server = await startServer({ DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-first-run-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'info' });
    try {
      const [, bootCode] = await waitForOutput(server, /boot code to create the administrator account: ([0-9a-f]{32})/);
      const page = await newPage();
      await page.goto(`${server.url}/`);
      await page.waitForURL(`${server.url}/first_run`);
      await checkPage(page, 'first-run');
      const fill = async (code: string) => {
        await page.getByLabel('Boot code').fill(code);
        await page.getByLabel('Email').fill('Admin@Example.com');
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByLabel('Password again').fill(PASSWORD);
        await page.getByRole('button', { name: 'Make the administrator account' }).click();
      };
      await fill('0123456789abcdef0123456789abcdef');
      await expect(page.locator('#boot_code-error').textContent()).resolves.toMatch(/^That boot code does not work/);
      await fill(bootCode);
      await page.waitForURL(`${server.url}/users/token`);
      await expect(page.locator('main').textContent()).resolves.toContain('Signed in as admin@example.com');
      // Over: /first_run leads to the sign-in page, which (signed in) leads on to the tokens.
      await page.goto(`${server.url}/first_run`);
      await page.waitForURL(`${server.url}/users/token`);
    } finally {
      await server.stop();
    }
    const app = await startTestApp({}, database);
    const users = await app.query<{ email: string; admin: unknown }>('SELECT email, admin FROM users');
    await app.close({ drop: true });
    expect(users.map((user) => [user.email, Boolean(Number(user.admin))])).toEqual([['admin@example.com', true]]);
  });
});
