import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkPage, launchBrowser } from '../support/browser';
import { startTestApp, type TestApp } from '../support/test-app';

const MESSAGE = 'Please send the staging DB password.\nAnd the key file, if you have it.';
const ANSWER = 'Kestrel-Answer-49c2e0d8';
const FILE_CONTENT = 'Avocet-ResponderFile-a1b7f3e5';
const PASSPHRASE = 'Osprey-Passphrase-0e6d4c21';

type Json = Record<string, any>;

/**
 * The responder's page (`/requests/:url_token`) as a person meets it, in a real browser: answering
 * with text and a file (with JavaScript, which posts the upload itself, and without), the
 * passphrase and the retrieval step, the pages after (thanks, already answered, gone), each
 * checked for accessibility (axe-core) and small screens (with JavaScript on: axe runs in the
 * page); the requester then reads what was sent.
 * @one-engine What the pages show and how a browser submits them is the same on every engine; the
 * answer's storage, its one-answer rule and its audit run on each engine in responder-pages.e2e-spec.ts.
 */
describe("the responder's page in a browser", () => {
  let app: TestApp;
  let browser: Browser;
  let owner: Record<string, string>;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    owner = { authorization: `Bearer ${await app.createUser('asker@example.com')}` };
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app.close({ drop: true });
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  async function newPage(javaScriptEnabled = true): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled });
    contexts.push(context);
    const page = await context.newPage();
    // A step that cannot happen fails at its line, well within the test's time.
    page.setDefaultTimeout(15_000);
    return page;
  }
  async function create(fields: Json = {}): Promise<{ url_token: string; html_url: string }> {
    const response = await fetch(`${app.baseUrl}/api/v2/requests`, {
      method: 'POST',
      headers: { ...owner, 'content-type': 'application/json' },
      body: JSON.stringify({ request: { request: MESSAGE, ...fields } }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { url_token: string; html_url: string };
  }
  /** The requester's read through the API: the answer, and each of the responder's files as downloaded. */
  async function requesterReads(urlToken: string): Promise<{ response: string | null; files: [string, string][] }> {
    const read = (await (await fetch(`${app.baseUrl}/api/v2/requests/${urlToken}`, { headers: owner })).json()) as Json;
    const files: [string, string][] = [];
    for (const file of read.files as Json[]) files.push([file.filename, await (await fetch(file.url)).text()]);
    return { response: read.response, files };
  }
  const auditKinds = async (urlToken: string): Promise<string[]> =>
    ((await (await fetch(`${app.baseUrl}/api/v2/requests/${urlToken}/audit`, { headers: owner })).json()) as Json).logs.map((entry: Json) => entry.kind);

  it('answers with text and a file (the upload posted by the page), shows the requester as asked, and thanks without the answer', async () => {
    const request = await create({ include_requestor: true, response_file_attachments: true });
    const page = await newPage();
    const opened = await page.goto(request.html_url);
    expect(opened!.status()).toBe(200);
    expect(opened!.headers()['cache-control']).toBe('no-store');
    await expect(page.locator('.request-message').innerText()).resolves.toBe(MESSAGE);
    await expect(page.getByText('asker@example.com').count()).resolves.toBe(1);
    await checkPage(page, 'request-respond');

    await page.getByLabel('Your answer').fill(ANSWER);
    await page.getByLabel('Files to send (optional)').setInputFiles({ name: 'staging.key', mimeType: 'text/plain', buffer: Buffer.from(FILE_CONTENT) });
    await page.getByRole('button', { name: 'Send the answer' }).click();
    // The page posts the upload itself and puts the answer page in its place.
    await page.getByRole('heading', { name: 'Answer sent' }).waitFor();
    await expect(page.locator('h1').textContent()).resolves.toBe('Answer sent');
    await expect(page.content()).resolves.not.toContain(ANSWER);
    await checkPage(page, 'request-respond-thanks');

    expect(await requesterReads(request.url_token)).toEqual({ response: ANSWER, files: [['staging.key', FILE_CONTENT]] });

    // Opened again: it has been answered, and says so.
    const again = await page.goto(request.html_url);
    expect(again!.status()).toBe(409);
    await expect(page.locator('h1').textContent()).resolves.toBe('Already answered');
    await expect(page.locator('.request-message').count()).resolves.toBe(0);
    await checkPage(page, 'request-respond-answered');
  });

  it('checks the files against their limits in the page, before anything is sent', async () => {
    const request = await create({ response_file_attachments: true });
    const page = await newPage();
    await page.goto(request.html_url);
    const files = Array.from({ length: app.settings.files.maxUploads + 1 }, (_, n) => ({ name: `f${n}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`file ${n}`) }));
    await page.getByLabel('Files to send (optional)').setInputFiles(files);
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await expect(page.locator('#files-error').innerText()).resolves.toMatch(/^Too many files/);
    await checkPage(page, 'request-respond-files-refused');
    expect((await requesterReads(request.url_token)).response).toBeNull();
  });

  it('asks for the passphrase first, says when it is wrong, and says what is missing from an empty answer', async () => {
    const request = await create({ passphrase: PASSPHRASE, response_file_attachments: true });
    const page = await newPage();
    await page.goto(request.html_url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Passphrase required');
    await expect(page.locator('.request-message').count()).resolves.toBe(0);
    await checkPage(page, 'request-respond-passphrase');

    await page.getByLabel('Passphrase').fill('not the passphrase');
    await page.getByRole('button', { name: 'Show the request' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe('That passphrase is incorrect.');
    await checkPage(page, 'request-respond-passphrase-wrong');

    await page.getByLabel('Passphrase').fill(PASSPHRASE);
    await page.getByRole('button', { name: 'Show the request' }).click();
    await expect(page.locator('.request-message').innerText()).resolves.toBe(MESSAGE);
    // Files are optional here, so the browser sends an empty form, and the page says what is missing.
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await expect(page.locator('#response-error').innerText()).resolves.toBe('Write your answer or attach a file.');
    await checkPage(page, 'request-respond-empty');
    expect(await auditKinds(request.url_token)).toEqual(['creation', 'failed_passphrase', 'view']);
  });

  it('works without JavaScript: the passphrase, then text and a file sent by the plain form', async () => {
    const request = await create({ passphrase: PASSPHRASE, response_file_attachments: true });
    const page = await newPage(false);
    await page.goto(request.html_url);
    await page.getByLabel('Passphrase').fill(PASSPHRASE);
    await page.getByRole('button', { name: 'Show the request' }).click();
    await expect(page.locator('.request-message').innerText()).resolves.toBe(MESSAGE);
    await page.getByLabel('Your answer').fill(ANSWER);
    await page.getByLabel('Files to send (optional)').setInputFiles({ name: 'key.txt', mimeType: 'text/plain', buffer: Buffer.from(FILE_CONTENT) });
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Answer sent');
    await expect(page.content()).resolves.not.toContain(ANSWER);
    expect(await requesterReads(request.url_token)).toEqual({ response: ANSWER, files: [['key.txt', FILE_CONTENT]] });
    expect(await auditKinds(request.url_token)).toEqual(['creation', 'view', 'response', 'response_view']);
  });

  it('puts the request behind a button with the retrieval step, and shows the neutral page once it is closed', async () => {
    const request = await create({ retrieval_step: true });
    const page = await newPage();
    await page.goto(request.html_url);
    await expect(page.locator('.request-message').count()).resolves.toBe(0);
    await checkPage(page, 'request-respond-step');
    expect(await auditKinds(request.url_token)).toEqual(['creation']);
    await page.getByRole('button', { name: 'Show the request' }).click();
    await expect(page.locator('.request-message').innerText()).resolves.toBe(MESSAGE);
    // No file field: this request takes none.
    await expect(page.locator('input[type="file"]').count()).resolves.toBe(0);
    await page.getByLabel('Your answer').fill(ANSWER);

    expect((await fetch(`${app.baseUrl}/api/v2/requests/${request.url_token}`, { method: 'DELETE', headers: owner })).status).toBe(200);
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Secret not available');
    await checkPage(page, 'request-respond-gone');
  });
});
