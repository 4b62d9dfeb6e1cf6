import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { UsersService } from '@app/auth';
import { checkPage, launchBrowser, WatchedPages } from '../support/browser';
import { sha256 } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';

/** With UPDATE_SCREENSHOTS=1, the pictures of these pages in docs/pages.md are taken again into docs/. */
const DOCS = join(__dirname, '..', '..', 'docs');

/**
 * The owner's pages in a real browser: the push form for each kind (files with the upload
 * script), the push-created page, the dashboard and its paging, the audit log, "Expire now",
 * someone else's push, CSRF, anonymous use turned off, the brand; axe-core and small screens on
 * every new page, and no console errors anywhere.
 */
describe('owner pages in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let pages: WatchedPages;
  let ownerToken: string;
  const OWNER = { email: 'owner-pages@example.com', password: 'a long password' };
  const OTHER = { email: 'someone-else@example.com', password: 'another long password' };

  beforeAll(async () => {
    app = await startTestApp({
      PWP__BRAND__TITLE: 'Acme Secrets',
      PWP__BRAND__TAGLINE: 'Share once',
      PWP__BRAND__DISCLAIMER: 'For Acme staff only.',
      PWP__BRAND__LIGHT_LOGO: '/assets/logo.svg',
      PWP__FILES__MAX_FILE_UPLOADS: '3',
    });
    ownerToken = (await app.service(UsersService).create(OWNER.email, OWNER.password)).api_token;
    await app.service(UsersService).create(OTHER.email, OTHER.password);
    browser = await launchBrowser();
    pages = new WatchedPages(browser);
  });
  afterAll(async () => {
    await browser?.close();
    await app.close({ drop: true });
  });
  afterEach(async () => {
    // The refusals the tests ask for (403, 404, 422, and the test logo, which does not exist) are logged as failed loads; nothing else may be.
    expect(await pages.closeAll()).toEqual([]);
  });

  const newPage = (javaScriptEnabled = true): Promise<Page> => pages.open({ acceptDownloads: true, javaScriptEnabled });

  async function signIn(page: Page, who: { email: string; password: string }, base = app): Promise<void> {
    await page.goto(`${base.baseUrl}/users/sign_in`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base.baseUrl}/users/token`);
  }

  async function check(page: Page, name: string, docs?: string): Promise<void> {
    if (docs && process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(DOCS, `${docs}.png`), fullPage: true });
    await checkPage(page, name);
  }

  /** The preview's link, after checking what the page shows: the link, its QR code, a copy button, the expiry; never the payload. */
  async function secretLinkOf(page: Page, payload?: string): Promise<string> {
    await page.waitForURL(/\/p\/[\w-]+\/preview$/);
    const link = await page.getByLabel('Secret link', { exact: true }).inputValue();
    expect(link).toMatch(new RegExp(`^${app.baseUrl}/p/[\\w-]+(/r)?$`));
    await expect(page.locator('figure.qr svg[role="img"]').count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'Copy to clipboard' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('.remaining').textContent()).resolves.toMatch(/^It works for \d+ more views? and expires in \d+ days?/);
    if (payload) expect(await page.content()).not.toContain(payload);
    return link;
  }

  async function reveal(link: string): Promise<Page> {
    const page = await newPage();
    await page.goto(link);
    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    return page;
  }

  it('creates each kind from the form, and the recipient gets it', async () => {
    const anonymous = await newPage();
    const opened = await anonymous.goto(`${app.baseUrl}/`);
    expect(opened!.headers()).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    expect(opened!.headers()['content-security-policy']).toMatch(/default-src 'none'.*script-src 'nonce-/);
    await expect(anonymous.locator('header.site').textContent()).resolves.toMatch(/Acme Secrets\s+Share once/);
    await expect(anonymous.locator('footer .disclaimer').textContent()).resolves.toBe('For Acme staff only.');
    await expect(anonymous.title()).resolves.toBe('Push a secret · Acme Secrets');
    // Anonymous: no name or note (nobody would see them), and files need a sign-in.
    await expect(anonymous.getByLabel('Name (optional)').count()).resolves.toBe(0);
    await expect(anonymous.getByLabel('Days', { exact: true }).inputValue()).resolves.toBe('7');
    await expect(anonymous.getByLabel('Views', { exact: true }).inputValue()).resolves.toBe('5');
    await check(anonymous, 'owner-form-anonymous');
    const text = `text secret ${randomBytes(4).toString('hex')}`;
    await anonymous.getByLabel('Secret', { exact: true }).fill(text);
    await anonymous.getByLabel('Views', { exact: true }).fill('2');
    await anonymous.getByRole('button', { name: 'Push it' }).click();
    const textLink = await secretLinkOf(anonymous, text);
    await check(anonymous, 'owner-preview', 'push-created');
    await expect((await reveal(textLink)).getByLabel('Secret', { exact: true }).inputValue()).resolves.toBe(text);
    await anonymous.getByRole('link', { name: 'Push another secret' }).click();
    await anonymous.getByRole('link', { name: 'Files' }).click();
    await expect(anonymous.getByRole('link', { name: 'Sign in to send files.' }).count()).resolves.toBe(1);

    const owner = await newPage();
    await signIn(owner, OWNER);
    await owner.goto(`${app.baseUrl}/p/new?kind=url`);
    await check(owner, 'owner-form-url');
    const target = `${app.baseUrl}/api/v2/version?from=url-push`;
    await owner.getByLabel('URL', { exact: true }).fill(target);
    await owner.getByLabel('Name (optional)').fill('a url');
    await owner.getByRole('button', { name: 'Push it' }).click();
    const recipient = await reveal(await secretLinkOf(owner));
    expect(recipient.url()).toBe(target);

    await owner.getByRole('link', { name: 'Push another secret' }).click();
    await owner.getByRole('link', { name: 'QR code' }).click();
    await owner.getByLabel('Text of the QR code').fill('WIFI:S:guests;T:WPA;P:qr-secret;;');
    await owner.getByRole('button', { name: 'Push it' }).click();
    const qr = await reveal(await secretLinkOf(owner, 'qr-secret'));
    await expect(qr.locator('figure.qr img').count()).resolves.toBe(1);
    await expect(qr.getByLabel('Text of the QR code').inputValue()).resolves.toBe('WIFI:S:guests;T:WPA;P:qr-secret;;');

    const files = [0, 1, 2].map((n) => ({ name: `file-${n}.bin`, mimeType: 'application/octet-stream', buffer: randomBytes(50_000 + n * 70_000) }));
    await owner.goto(`${app.baseUrl}/p/new?kind=file`);
    await check(owner, 'owner-form-files', 'push-form');
    await owner.getByLabel('Message (optional)').fill('three files');
    // Over the limit (3 here): the script says so beside the field before sending anything.
    await owner.getByLabel('Files', { exact: true }).setInputFiles([...files, files[0]].map((file, n) => ({ ...file, name: `extra-${n}.bin` })));
    await owner.getByRole('button', { name: 'Push it' }).click();
    await expect(owner.locator('#files-error').textContent()).resolves.toBe('Too many files: at most 3 files per push.');
    await expect(owner.getByLabel('Message (optional)').inputValue()).resolves.toBe('three files');
    // A refusal of the server's (here days out of range, past the browser's own check) takes the form's place.
    await owner.getByLabel('Files', { exact: true }).setInputFiles(files);
    await owner.evaluate(() => ((globalThis as unknown as { document: { querySelector(s: string): { noValidate: boolean } } }).document.querySelector('form.push').noValidate = true));
    await owner.getByLabel('Days', { exact: true }).fill('0');
    await owner.getByRole('button', { name: 'Push it' }).click();
    await expect(owner.locator('#days-error').textContent()).resolves.toBe('Expire after days must be between 1 and 90.');
    await expect(owner.getByLabel('Message (optional)').inputValue()).resolves.toBe('three files');
    expect(owner.url()).toBe(`${app.baseUrl}/p/new?kind=file`);
    await owner.getByLabel('Days', { exact: true }).fill('3');
    await owner.getByLabel('Files', { exact: true }).setInputFiles(files);
    // Sent by the page's script, which reports progress and follows the answer to the preview.
    await owner.getByRole('button', { name: 'Push it' }).click();
    await owner.waitForURL(/\/preview$/);
    const downloads = await reveal(await secretLinkOf(owner));
    for (const file of files) {
      const [download] = await Promise.all([downloads.waitForEvent('download'), downloads.getByRole('link', { name: file.name }).click()]);
      expect([file.name, sha256(readFileSync(await download.path()))]).toEqual([file.name, sha256(file.buffer)]);
    }
  });

  it('shows validation errors beside their fields, keeping what was entered but the passphrase', async () => {
    const page = await newPage();
    await signIn(page, OWNER);
    await page.goto(`${app.baseUrl}/p/new`);
    // As a browser without constraint validation would send it: the server's rules answer.
    await page.evaluate(() => ((globalThis as unknown as { document: { querySelector(s: string): { noValidate: boolean } } }).document.querySelector('form.push').noValidate = true));
    await page.getByLabel('Secret', { exact: true }).fill('kept payload');
    await page.getByLabel('Days', { exact: true }).fill('1000');
    await page.getByLabel('Passphrase (optional)').fill('never shown again');
    await page.getByLabel('Name (optional)').fill('kept name');
    await page.getByLabel('Let the recipient delete the secret').uncheck();
    await page.getByRole('button', { name: 'Push it' }).click();
    await expect(page.locator('#days-error').textContent()).resolves.toBe('Expire after days must be between 1 and 90.');
    await expect(page.getByLabel('Days', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('Secret', { exact: true }).inputValue()).resolves.toBe('kept payload');
    await expect(page.getByLabel('Name (optional)').inputValue()).resolves.toBe('kept name');
    await expect(page.getByLabel('Let the recipient delete the secret').isChecked()).resolves.toBe(false);
    await expect(page.getByLabel('Passphrase (optional)').inputValue()).resolves.toBe('');
    expect(await page.content()).not.toContain('never shown again');
    await check(page, 'owner-form-refused');

    await page.goto(`${app.baseUrl}/p/new?kind=url`);
    await page.getByLabel('URL', { exact: true }).fill('ftp://files.example.com/secret');
    await page.getByRole('button', { name: 'Push it' }).click();
    await expect(page.locator('#payload-error').textContent()).resolves.toBe('Payload must be an absolute http or https URL.');
    await expect(page.getByLabel('URL', { exact: true }).inputValue()).resolves.toBe('ftp://files.example.com/secret');
  });

  it('works without JavaScript, where the server refuses an upload over the limit beside its field', async () => {
    const page = await newPage(false);
    await signIn(page, OWNER);
    await page.goto(`${app.baseUrl}/`);
    await page.getByLabel('Secret', { exact: true }).fill('no script needed');
    await page.getByRole('button', { name: 'Push it' }).click();
    const link = await page.getByLabel('Secret link', { exact: true }).inputValue();
    await expect(page.locator('figure.qr svg').count()).resolves.toBe(1);
    await expect((await reveal(link)).getByLabel('Secret', { exact: true }).inputValue()).resolves.toBe('no script needed');

    await page.goto(`${app.baseUrl}/p/new?kind=file`);
    const file = { mimeType: 'text/plain', buffer: Buffer.from('x') };
    await page.getByLabel('Files', { exact: true }).setInputFiles([1, 2, 3, 4].map((n) => ({ ...file, name: `f${n}.txt` })));
    await page.getByRole('button', { name: 'Push it' }).click();
    await expect(page.locator('#files-error').textContent()).resolves.toBe('Too many files: at most 3 per push.');
    await expect(page.locator('nav.tabs [aria-current="page"]').textContent()).resolves.toBe('Files');
  });

  it('pages the dashboard past 50, shows the audit log, and expires a push from the dashboard', async () => {
    for (let n = 0; n < 51; n++) {
      const response = await fetch(`${app.baseUrl}/api/v2/pushes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ownerToken}` },
        body: JSON.stringify({ push: { payload: `seeded ${n}`, name: `seeded ${String(n).padStart(2, '0')}` } }),
      });
      expect(response.status).toBe(201);
    }
    const page = await newPage();
    await signIn(page, OWNER);
    // Every page's header leads to the dashboard, whatever the footer shows.
    await page.goto(`${app.baseUrl}/`);
    await page.locator('header nav.site').getByRole('link', { name: 'Your pushes' }).click();
    await page.waitForURL(`${app.baseUrl}/dashboard/active`);
    await expect(page.locator('tbody tr').count()).resolves.toBe(50);
    await expect(page.locator('tbody tr').first().locator('td').first().textContent()).resolves.toBe('seeded 50');
    await check(page, 'owner-dashboard', 'dashboard');
    await page.getByRole('link', { name: 'Next page' }).click();
    // The page loaded, not only its address: a count does not wait, and under load the rows had not come yet.
    await page.waitForURL(`${app.baseUrl}/dashboard/active?page=2`);
    const rest = await page.locator('tbody tr').count();
    expect(rest).toBeGreaterThanOrEqual(1);
    await expect(page.getByRole('link', { name: 'Previous page' }).count()).resolves.toBe(1);

    await page.getByRole('link', { name: 'Previous page' }).click();
    await page.getByRole('link', { name: 'Expire seeded 50' }).click();
    await check(page, 'owner-expire-confirm');
    await page.getByRole('button', { name: 'Yes, expire it now' }).click();
    await page.waitForURL(/\/p\/[\w-]+\/audit$/);
    await expect(page.locator('dd').nth(1).textContent()).resolves.toBe('Expired.');
    await expect(page.locator('tbody td:first-child').allTextContents()).resolves.toEqual(['Created', 'Expired by hand']);
    await check(page, 'owner-audit', 'audit-log');
    const token = page.url().split('/').at(-2)!;
    const api = await fetch(`${app.baseUrl}/api/v2/pushes/${token}/audit`, { headers: { authorization: `Bearer ${ownerToken}` } });
    expect(((await api.json()) as { logs: { kind: string }[] }).logs.map((entry) => entry.kind)).toEqual(['creation', 'expire']);

    await page.goto(`${app.baseUrl}/dashboard/expired`);
    await expect(page.getByRole('link', { name: 'Audit log of seeded 50' }).count()).resolves.toBe(1);
    await check(page, 'owner-dashboard-expired');
  });

  it("answers someone else's push with the neutral 404, and refuses forms without their CSRF token", async () => {
    const created = await fetch(`${app.baseUrl}/api/v2/pushes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ownerToken}` },
      body: JSON.stringify({ push: { payload: 'owned', deletable_by_viewer: true } }),
    });
    const { url_token: token } = (await created.json()) as { url_token: string };
    const other = await newPage();
    await signIn(other, OTHER);
    for (const path of ['audit', 'expire']) {
      const answer = await other.goto(`${app.baseUrl}/p/${token}/${path}`);
      expect([path, answer!.status()]).toEqual([path, 404]);
      await expect(other.locator('h1').textContent()).resolves.toBe('Secret not available');
    }
    await other.goto(`${app.baseUrl}/p/new`);
    const csrf = await other.locator('input[name="_csrf"]').first().inputValue();
    const refused = await other.request.post(`${app.baseUrl}/p/${token}/expire`, { form: { _csrf: csrf }, maxRedirects: 0 });
    expect(refused.status()).toBe(404);

    const forgedCreate = await other.request.post(`${app.baseUrl}/p/new`, { form: { 'push[payload]': 'forged' }, maxRedirects: 0 });
    expect(forgedCreate.status()).toBe(403);
    const owner = await newPage();
    await signIn(owner, OWNER);
    const forgedExpiry = await owner.request.post(`${app.baseUrl}/p/${token}/expire`, { form: { _csrf: 'x'.repeat(43) }, maxRedirects: 0 });
    expect(forgedExpiry.status()).toBe(403);
    const push = await fetch(`${app.baseUrl}/api/v2/pushes/${token}/audit`, { headers: { authorization: `Bearer ${ownerToken}` } });
    expect(((await push.json()) as { logs: { kind: string }[] }).logs.map((entry) => entry.kind)).toEqual(['creation']);
    // Anonymous: the owner pages ask for a sign-in.
    const anonymous = await newPage();
    await anonymous.goto(`${app.baseUrl}/dashboard/active`);
    expect(anonymous.url()).toBe(`${app.baseUrl}/users/sign_in`);
  });

  it('asks for a sign-in before the form when anonymous use is off', async () => {
    const closed = await startTestApp({ PWP__ALLOW_ANONYMOUS: 'false' }, app.database);
    const page = await newPage();
    try {
      await page.goto(`${closed.baseUrl}/`);
      await page.waitForURL(`${closed.baseUrl}/users/sign_in`);
      await page.goto(`${closed.baseUrl}/p/new?kind=qr`);
      await page.waitForURL(`${closed.baseUrl}/users/sign_in`);
      // The default brand: this product's own name.
      await expect(page.title()).resolves.toBe('Sign in · pwpush-api');
      await signIn(page, OWNER, closed);
      await page.goto(`${closed.baseUrl}/`);
      await page.getByLabel('Secret', { exact: true }).fill('signed-in push');
      await page.getByRole('button', { name: 'Push it' }).click();
      await page.waitForURL(/\/preview$/);
    } finally {
      // The page first: what it still loads must not meet an app that has gone (a console error).
      await page.context().close();
      await closed.close();
    }
  });
});
