import type { Browser, Page } from 'playwright-core';
import { UsersService } from '@app/auth';
import { checkPage, launchBrowser, WatchedPages } from '../support/browser';
import { client } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

const ADMIN = { email: 'root-browser@example.com', password: 'a long password' };
const PERSON = { email: 'person-browser@example.com', password: 'another long password' };

/**
 * The administration center in a real browser: each page (one h1, axe-core clean, 320 px and 200 %
 * zoom), its actions by their buttons without JavaScript, the custom CSS applied on every page by
 * its stylesheet, and the 404 a person who is not an administrator gets.
 * @one-engine What a browser adds (looks, axe, buttons without a script) is the same on every
 * engine; every page's reads and each action's writes run on each engine in admin.e2e-spec.ts.
 */
describe('administration in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let pages: WatchedPages;
  let personToken: string;

  beforeAll(async () => {
    app = await startTestApp();
    const users = app.service(UsersService);
    await users.create(ADMIN.email, ADMIN.password, { admin: true });
    personToken = (await users.create(PERSON.email, PERSON.password)).api_token;
    browser = await launchBrowser();
    // The 404s the tests ask for are logged as failed loads; nothing else may be.
    pages = new WatchedPages(browser, /^404$/);
  });
  afterAll(async () => {
    await browser?.close();
    await app.close({ drop: true });
  });
  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  async function signedIn(who: { email: string; password: string }, javaScriptEnabled = true): Promise<Page> {
    const page = await pages.open({ javaScriptEnabled });
    page.setDefaultTimeout(10_000);
    await page.goto(`${app.baseUrl}/users/sign_in`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.baseUrl}/users/token`);
    return page;
  }

  it('shows every page of the administration, accessible and usable on small screens', async () => {
    const api = client(app.baseUrl);
    await api.createPush({ payload: 'browser secret', name: 'browser name' }, { authorization: `Bearer ${personToken}` });
    const page = await signedIn(ADMIN);
    for (const [path, heading] of [
      ['/admin', 'Administration'],
      ['/admin/users', 'People'],
      ['/admin/pushes', 'Pushes'],
      ['/admin/audit', 'Audit log'],
      ['/admin/notifications', 'Notifications'],
      ['/admin/custom_css', 'Custom CSS'],
    ]) {
      const answer = await page.goto(`${app.baseUrl}${path}`);
      expect([path, answer!.status()]).toEqual([path, 200]);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(heading);
      await checkPage(page, `admin${path.replace(/\//g, '-')}`);
    }
    const pushes = await page.goto(`${app.baseUrl}/admin/pushes`);
    const html = await pushes!.text();
    for (const secret of ['browser secret', 'browser name']) expect(html).not.toContain(secret);
  });

  it('acts by its buttons without JavaScript: promote, then revoke, a person; expire a push', async () => {
    const page = await signedIn(ADMIN, false);
    await page.goto(`${app.baseUrl}/admin/users?q=${PERSON.email}`);
    await page.getByRole('button', { name: `Make administrator: ${PERSON.email}` }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('The person is now an administrator.');
    await page.getByRole('button', { name: `Revoke administrator: ${PERSON.email}` }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('The person is no longer an administrator.');

    const push = await client(app.baseUrl).createPush({ payload: 'to expire' });
    await page.goto(`${app.baseUrl}/admin/pushes`);
    await page.getByRole('button', { name: `Expire the push ${push.url_token.slice(0, 4)}…` }).first().click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('The push was expired.');
    const retrieved = await client(app.baseUrl).get(`/api/v2/pushes/${push.url_token}`);
    expect(retrieved.body.expired).toBe(true);
  });

  it('applies the custom CSS on every page through its stylesheet', async () => {
    const page = await signedIn(ADMIN);
    await page.goto(`${app.baseUrl}/admin/custom_css`);
    await page.getByLabel('CSS').fill('main { outline: 3px solid rgb(255, 0, 128); }');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('The stylesheet is saved and served on every page.');
    const visitor = await pages.open();
    for (const path of ['/', '/users/sign_in', '/p/no-such-push']) {
      await visitor.goto(`${app.baseUrl}${path}`);
      const outline = await visitor.locator('main').evaluate((element) => (globalThis as unknown as { getComputedStyle(e: unknown): { outlineColor: string } }).getComputedStyle(element).outlineColor);
      expect([path, outline]).toEqual([path, 'rgb(255, 0, 128)']);
    }
  });

  it('is a 404 to a person who is not an administrator, and to a visitor', async () => {
    const page = await signedIn(PERSON);
    for (const path of ['/admin', '/admin/users', '/admin/audit']) {
      const answer = await page.goto(`${app.baseUrl}${path}`);
      expect([path, answer!.status(), page.url()]).toEqual([path, 404, `${app.baseUrl}${path}`]);
    }
    const visitor = await pages.open();
    expect((await visitor.goto(`${app.baseUrl}/admin`))!.status()).toBe(404);
  });
});
