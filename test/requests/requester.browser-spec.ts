import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { UsersService } from '@app/auth';
import { checkPage, launchBrowser, WatchedPages } from '../support/browser';
import { sha256 } from '../support/helpers';
import { startTestApp, type TestApp } from '../support/test-app';

const ANSWER = 'Whimbrel-Answer-5c0e9b72';
const OWNER = { email: 'requester-browser@example.com', password: 'a long password' };

/** The computed CSS filter of an element: "none" when readable, "blur(...)" while blurred. */
const filterOf = (page: Page, selector: string) =>
  page.locator(selector).evaluate((node) => (globalThis as unknown as { getComputedStyle(node: unknown): { filter: string } }).getComputedStyle(node).filter);

/**
 * The requester's pages in a real browser: a request made through the form, answered through the
 * responder's page (text and a file; through the API in the run without JavaScript), then read on
 * the request's page (the answer blurred until
 * clicked, the file downloaded equal to the upload), and "Close now"; the same without
 * JavaScript; axe-core and small screens on the form, the Requests tab and the request's page.
 * @one-engine What the pages do with each engine's rows runs on every engine in
 * requester-pages.e2e-spec.ts; here only what a browser adds (blur, copy, downloads, forms without
 * a script), which is the same on every engine.
 */
describe("the requester's pages in a browser", () => {
  let app: TestApp;
  let browser: Browser;
  let pages: WatchedPages;
  let ownerToken: string;

  beforeAll(async () => {
    app = await startTestApp();
    ownerToken = (await app.service(UsersService).create(OWNER.email, OWNER.password)).api_token;
    browser = await launchBrowser();
    pages = new WatchedPages(browser);
  });
  afterAll(async () => {
    await browser?.close();
    await app.close({ drop: true });
  });
  afterEach(async () => {
    expect(await pages.closeAll()).toEqual([]);
  });

  async function signedInPage(javaScriptEnabled = true): Promise<Page> {
    const page = await pages.open({ acceptDownloads: true, javaScriptEnabled });
    await page.goto(`${app.baseUrl}/users/sign_in`);
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.baseUrl}/users/token`);
    return page;
  }

  /** Fills and sends the form from the site's navigation; returns the request's token, from the page it lands on. */
  async function requestThroughForm(page: Page, name: string): Promise<string> {
    await page.goto(`${app.baseUrl}/`);
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Request a secret' }).click();
    await page.waitForURL(`${app.baseUrl}/dashboard/requests/new`);
    await page.getByLabel('What you are asking for').fill('Please send the staging database password and its certificate.');
    await page.getByLabel('Close after').selectOption({ label: '2 days' });
    await page.getByLabel('Let them attach files to the answer').check();
    await page.getByLabel('Name (optional)').fill(name);
    await page.getByRole('button', { name: 'Create the request' }).click();
    await page.waitForURL(/\/dashboard\/requests\/[\w-]+$/);
    return page.url().split('/').pop()!;
  }

  /** The responder's answer through their page, in a browser of their own (no account): the text, and a file. */
  async function answerThroughPage(urlToken: string, bytes: Buffer): Promise<void> {
    const page = await pages.open();
    await page.goto(`${app.baseUrl}/requests/${urlToken}`);
    await expect(page.getByText('Please send the staging database password and its certificate.').isVisible()).resolves.toBe(true);
    await page.getByLabel('Your answer').fill(ANSWER);
    await page.getByLabel('Files to send (optional)').setInputFiles({ name: 'certificate.pem', mimeType: 'application/octet-stream', buffer: bytes });
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await page.getByRole('heading', { name: 'Answer sent' }).waitFor();
  }

  /** The responder's answer through the API: the text, and a file by multipart. */
  async function answerThroughApi(urlToken: string, bytes: Buffer): Promise<void> {
    const form = new FormData();
    form.append('request[response]', ANSWER);
    form.append('request[files][]', new Blob([bytes], { type: 'application/octet-stream' }), 'certificate.pem');
    const answer = await fetch(`${app.baseUrl}/api/v2/requests/${urlToken}/respond`, { method: 'PATCH', body: form });
    expect(answer.status).toBe(200);
  }

  it('makes a request through the form, reads the answer sent through the responder\'s page (blurred until clicked) and its file, then closes it', async () => {
    const page = await signedInPage();
    await page.goto(`${app.baseUrl}/dashboard/requests/new`);
    await checkPage(page, 'request-form');
    // A refused form keeps what was typed and says what to correct, beside the field.
    await page.getByLabel('Name (optional)').fill('Staging password');
    await page.getByLabel('What you are asking for').fill('   ');
    await page.getByRole('button', { name: 'Create the request' }).click();
    await expect(page.getByText('Request is required.').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Name (optional)').inputValue()).resolves.toBe('Staging password');
    await checkPage(page, 'request-form-refused');

    const urlToken = await requestThroughForm(page, 'Staging password');
    await expect(page.getByLabel('Link to send').inputValue()).resolves.toBe(`${app.baseUrl}/requests/${urlToken}`);
    await expect(page.getByText('No answer yet.').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Copy to clipboard' }).isVisible()).resolves.toBe(true);

    const bytes = randomBytes(4096);
    await answerThroughPage(urlToken, bytes);
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Your pushes' }).click();
    await page.getByRole('link', { name: 'Requests', exact: true }).click();
    await page.getByRole('link', { name: 'Answered', exact: true }).click();
    await checkPage(page, 'request-tab');
    await page.getByRole('link', { name: 'Staging password' }).click();

    const answer = page.locator('#answer');
    expect(await filterOf(page, '#answer')).toMatch(/^blur\(/);
    await expect(page.locator('#blur-hint').isVisible()).resolves.toBe(true);
    await checkPage(page, 'request-page');
    await answer.click();
    expect(await filterOf(page, '#answer')).toBe('none');
    await expect(answer.inputValue()).resolves.toBe(ANSWER);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'certificate.pem' }).click()]);
    expect(download.suggestedFilename()).toBe('certificate.pem');
    expect(sha256(readFileSync(await download.path()))).toBe(sha256(bytes));
    await expect(page.getByRole('cell', { name: 'Answer read by you' }).first().isVisible()).resolves.toBe(true);
    // The form's file input was left empty: no file of the requester's own.
    await expect(page.getByRole('heading', { name: 'Your files' }).count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Close now' }).click();
    await checkPage(page, 'request-close');
    await page.getByRole('button', { name: 'Yes, close it now' }).click();
    await page.waitForURL(`${app.baseUrl}/dashboard/requests/${urlToken}`);
    await expect(page.getByText('This request is closed').isVisible()).resolves.toBe(true);
    await expect(page.locator('#answer').count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'certificate.pem' }).count()).resolves.toBe(0);
    await expect(page.getByRole('cell', { name: 'Closed by you' }).isVisible()).resolves.toBe(true);
  });

  it('works without JavaScript: the form, the answer plain to read, the file, and Close now', async () => {
    const page = await signedInPage(false);
    const urlToken = await requestThroughForm(page, 'Without a script');
    const bytes = randomBytes(1024);
    await answerThroughApi(urlToken, bytes);
    await page.reload();
    expect(await filterOf(page, '#answer')).toBe('none');
    await expect(page.locator('#answer').inputValue()).resolves.toBe(ANSWER);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'certificate.pem' }).click()]);
    expect(sha256(readFileSync(await download.path()))).toBe(sha256(bytes));
    await page.getByRole('link', { name: 'Close now' }).click();
    await page.getByRole('button', { name: 'Yes, close it now' }).click();
    await expect(page.getByText('This request is closed').isVisible()).resolves.toBe(true);
    const read = await fetch(`${app.baseUrl}/api/v2/requests/${urlToken}`, { headers: { authorization: `Bearer ${ownerToken}` } });
    expect(await read.json()).toMatchObject({ state: 'closed', response: null, files: [] });
  });
});
