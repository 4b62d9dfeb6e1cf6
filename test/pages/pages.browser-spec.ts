import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UsersService } from '@app/auth';
import { checkPage, launchBrowser } from '../support/browser';
import { auditKinds, sha256 } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The pages as a person meets them, in a real browser: the recipient's page behind html_url
 * (retrieval step, passphrase, URL, QR and file pushes), sign-in and /users/token, CSRF, and
 * accessibility (axe-core) and small screens on every page.
 * @one-engine What a browser adds (scripts, looks, axe) is the same on every engine; the recipient's
 * and sign-in pages' reads and writes run on each engine in pages.e2e-spec.ts and the API specs.
 */
describe('pages in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ownerToken: string;

  beforeAll(async () => {
    app = await startTestApp();
    ownerToken = await app.createUser('pages-owner@example.com');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app.close({ drop: true });
  });
  beforeEach(async () => {
    context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  async function createPush(push: Record<string, unknown>, token = ownerToken): Promise<{ url_token: string; html_url: string }> {
    const response = await fetch(`${app.baseUrl}/api/v2/pushes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ push }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { url_token: string; html_url: string };
  }

  it('reveals a secret only when the button is pressed, once, then shows the neutral page', async () => {
    const secret = `s3cret <b>${randomBytes(4).toString('hex')}</b>`;
    const push = await createPush({ payload: secret, expire_after_views: 1 });
    expect(push.html_url).toMatch(/\/p\/[\w-]+\/r$/);

    const opened = await page.goto(push.html_url);
    expect(opened!.status()).toBe(200);
    expect(opened!.headers()['cache-control']).toBe('no-store');
    expect(opened!.headers()['content-security-policy']).toMatch(/script-src 'nonce-[0-9a-f]{32}'.*frame-ancestors 'none'/);
    expect(opened!.headers()['referrer-policy']).toBe('no-referrer');
    await expect(page.locator('text=s3cret').count()).resolves.toBe(0);
    await checkPage(page, 'recipient-retrieval-step');
    // A link preview fetching the page again consumes nothing either.
    await fetch(push.html_url);
    expect(await auditKinds(app.baseUrl, push.url_token, ownerToken)).toEqual(['creation']);

    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    await expect(page.getByLabel('Secret').inputValue()).resolves.toBe(secret);
    await expect(page.getByRole('button', { name: 'Copy to clipboard' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('text=That was the last view').count()).resolves.toBe(1);
    await checkPage(page, 'recipient-secret');
    expect(await auditKinds(app.baseUrl, push.url_token, ownerToken)).toEqual(['creation', 'view']);

    const again = await page.goto(push.html_url);
    expect(again!.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('Secret not available');
    await checkPage(page, 'recipient-gone');
    // Unknown and used up look the same: no existence oracle (only the per-response nonce differs).
    const body = async (url: string) => (await (await fetch(url)).text()).replace(/nonce="\w+"/, '');
    const unknown = await fetch(`${app.baseUrl}/p/NoSuchTokenNoSuchToken12`);
    expect(unknown.status).toBe(404);
    expect(await body(`${app.baseUrl}/p/NoSuchTokenNoSuchToken12`)).toBe(await body(push.html_url));
  });

  it('reveals at once without the retrieval step, and lets a viewer delete the push', async () => {
    const push = await createPush({ payload: 'no step here', retrieval_step: false, expire_after_views: 3 });
    await page.goto(push.html_url);
    await expect(page.getByLabel('Secret').inputValue()).resolves.toBe('no step here');
    await expect(page.locator('text=This link allows 2 more views').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Delete this secret now' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Secret deleted');
    await checkPage(page, 'recipient-deleted');
    expect(await auditKinds(app.baseUrl, push.url_token, ownerToken)).toEqual(['creation', 'view', 'expire']);
  });

  it('asks for the passphrase in a form, says when it is wrong, and locks out after five misses', async () => {
    const push = await createPush({ payload: 'guarded', passphrase: 'open sesame', expire_after_views: 2 });
    await page.goto(push.html_url);
    await checkPage(page, 'recipient-passphrase');
    await page.getByLabel('Passphrase').fill('wrong');
    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('That passphrase is incorrect.');
    expect(page.url()).not.toContain('wrong');
    expect(await auditKinds(app.baseUrl, push.url_token, ownerToken)).toEqual(['creation', 'failed_passphrase']);
    await page.getByLabel('Passphrase').fill('open sesame');
    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    await expect(page.getByLabel('Secret').inputValue()).resolves.toBe('guarded');
    await page.waitForURL(`${app.baseUrl}/p/${push.url_token}/access`);

    const locked = await createPush({ payload: 'locked', passphrase: 'right one' });
    await page.goto(locked.html_url);
    for (let attempt = 1; attempt <= 5; attempt++) {
      await page.getByLabel('Passphrase').fill(`guess ${attempt}`);
      await page.getByRole('button', { name: 'Reveal the secret' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('That passphrase is incorrect.');
    }
    await page.getByLabel('Passphrase').fill('right one');
    const sixth = page.waitForResponse((response) => response.url().endsWith('/access'));
    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    expect((await sixth).status()).toBe(429);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^Too many failed passphrase attempts\. Try again in \d+ seconds\.$/);
    await checkPage(page, 'recipient-locked');
  });

  it('redirects to the URL of a URL push after the view', async () => {
    const target = `${app.baseUrl}/api/v2/version`;
    const push = await createPush({ kind: 'url', payload: target });
    await page.goto(push.html_url);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/p/${push.url_token}/r`)), page.getByRole('button', { name: 'Reveal the secret' }).click()]);
    expect([response.status(), response.headers().location]).toEqual([303, target]);
    await page.waitForURL(target);
    expect(await auditKinds(app.baseUrl, push.url_token, ownerToken)).toEqual(['creation', 'view']);
  });

  it('shows a QR push as an image rendered on the server', async () => {
    const push = await createPush({ kind: 'qr', payload: 'WIFI:S:guest;T:WPA;P:correct horse;;' });
    await page.goto(push.html_url);
    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    const image = page.getByRole('img', { name: 'QR code of the secret' });
    await expect(image.evaluate((img) => { const loaded = img as unknown as { complete: boolean; naturalWidth: number }; return loaded.complete && loaded.naturalWidth > 100; })).resolves.toBe(true);
    await checkPage(page, 'recipient-qr');
  });

  it('lists the files of a file push, and downloads one equal to the upload', async () => {
    const bytes = randomBytes(150_000);
    const form = new FormData();
    form.append('push[files][]', new Blob([bytes]), 'report 2026.bin');
    const created = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', body: form, headers: { authorization: `Bearer ${ownerToken}` } });
    const push = (await created.json()) as { html_url: string };
    await page.goto(push.html_url);
    await page.getByRole('button', { name: 'Reveal the secret' }).click();
    await expect(page.locator('.files li').textContent()).resolves.toBe('report 2026.bin (150 kB)');
    await checkPage(page, 'recipient-files');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'report 2026.bin' }).click()]);
    expect(download.suggestedFilename()).toBe('report 2026.bin');
    expect(sha256(readFileSync(await download.path()))).toBe(sha256(bytes));
  });

  it('signs in, issues a token that works on the API, rotates it, and signs out', async () => {
    await app.service(UsersService).create('person@example.com', 'a long password');
    await page.goto(`${app.baseUrl}/users/token`);
    await page.waitForURL(`${app.baseUrl}/users/sign_in`);
    await checkPage(page, 'sign-in');
    await page.getByLabel('Email').fill('person@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Incorrect email or password.');

    await page.getByLabel('Password').fill('a long password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.baseUrl}/users/token`);
    const cookie = (await context.cookies()).find((c) => c.name === 'pwpush_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await expect(page.locator('td', { hasText: 'default' }).count()).resolves.toBe(1);

    await page.getByLabel('Name').fill('ci pipeline');
    await page.getByRole('button', { name: 'Issue token' }).click();
    const first = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
    expect(first).toMatch(/^pwp_[\w-]{43}$/);
    await checkPage(page, 'tokens-issued');
    const active = (token: string) => fetch(`${app.baseUrl}/api/v2/pushes/active`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await active(first)).toBe(200);

    await page.getByRole('button', { name: 'Rotate the token ci pipeline' }).click();
    const second = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
    expect(second).not.toBe(first);
    expect([await active(first), await active(second)]).toEqual([401, 200]);
    // Shown once: the token page itself never shows it again.
    await page.goto(`${app.baseUrl}/users/token`);
    expect(await page.content()).not.toContain(second);
    await checkPage(page, 'tokens');

    await page.getByRole('button', { name: 'Revoke the token ci pipeline' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toBe('The token “ci pipeline” is revoked.');
    expect(await active(second)).toBe(401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app.baseUrl}/users/sign_in`);
    await page.goto(`${app.baseUrl}/users/token`);
    await page.waitForURL(`${app.baseUrl}/users/sign_in`);
  });

  it('refuses a form POST without its CSRF token, and consumes nothing', async () => {
    const push = await createPush({ payload: 'csrf-guarded' });
    await page.goto(push.html_url);
    const forged = await page.request.post(`${app.baseUrl}/p/${push.url_token}/r`, { form: { passphrase: '' }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('This form has expired. Reload the page and try again.');
    const otherBrowser = await page.request.post(`${app.baseUrl}/p/${push.url_token}/r`, { form: { _csrf: 'x'.repeat(43) } });
    expect(otherBrowser.status()).toBe(403);
    expect(await auditKinds(app.baseUrl, push.url_token, ownerToken)).toEqual(['creation']);
    await page.goto(`${app.baseUrl}/users/sign_in`);
    const signIn = await page.request.post(`${app.baseUrl}/users/sign_in`, { form: { email: 'person@example.com', password: 'a long password' }, maxRedirects: 0 });
    expect(signIn.status()).toBe(403);
  });
});
