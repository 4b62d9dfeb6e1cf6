import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { UserEntity, UsersService } from '@app/auth';
import { shippedCatalogues, SOURCE_LANGUAGE } from '@app/i18n';
import { checkPage, launchBrowser } from '../support/browser';
import { startTestApp, type TestApp } from '../support/test-app';

const catalogues = shippedCatalogues();
const LANGUAGES = catalogues.locales;
const english = catalogues.messages(SOURCE_LANGUAGE);
const KEYS = Object.keys(english);

/** The literal runs of a message, inside plurals too: the words a reader would see of it. */
function literals(elements: MessageFormatElement[]): string[] {
  return elements.flatMap((element) => {
    if (element.type === TYPE.literal) return [element.value];
    if (element.type === TYPE.plural || element.type === TYPE.select) return Object.values(element.options).flatMap((option) => literals(option.value));
    return [];
  });
}
const wordsOf = (messages: Readonly<Record<string, string>>): string[] =>
  Object.values(messages).flatMap((message) => literals(parse(message, { ignoreTag: true })).map((run) => run.trim()));

/**
 * English that would betray an untranslated string on a page in `code`: every run of English
 * words (two words or more) that the language's own catalogue does not also use (names such as
 * "URL" or "API" stay as they are in every language).
 */
function englishTell(code: string): string[] {
  const own = new Set(wordsOf(catalogues.messages(code as never)));
  return [...new Set(wordsOf(english))].filter((run) => /[A-Za-z]+\s+[A-Za-z]+/.test(run) && !own.has(run) && ![...own].some((word) => word.includes(run)));
}

/** What a person reads or hears of the page: its text, its title, and its labels for assistive technology. */
async function readable(page: Page): Promise<string> {
  // Once the body is there: under load, a page evaluated right after its lang was read once had none yet.
  await page.waitForFunction(() => (globalThis as unknown as { document: Document }).document.body !== null);
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: Document }).document;
    const labels = [...doc.querySelectorAll('[aria-label], [alt], [placeholder]')].map((node) =>
      ['aria-label', 'alt', 'placeholder'].map((name) => node.getAttribute(name) ?? '').join(' '),
    );
    return [doc.title, doc.body.innerText, ...labels, ...Object.values(doc.body.dataset)].join('\n');
  });
}

interface Document {
  title: string;
  body: { innerText: string; dataset: Record<string, string> };
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
}

/**
 * The pages in every shipped language, in a real browser: the push form, the preview page, the
 * recipient's pages and sign-in each in the language the browser asks for (`lang`, no raw key,
 * no English but names), Urdu right-to-left and mirrored, the footer's language menu, the
 * Accept-Language weights, axe in German, Japanese and Urdu; the theme toggle and the blurred secret.
 * @one-engine How a page reads in a language is the same on every engine; a person's preferred
 * language, stored and read back, runs on each engine in languages.e2e-spec.ts.
 */
describe('languages in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    app = await startTestApp();
    // An administrator exists (the owner pages lead to the first run until one does).
    await app.service(UsersService).create('operator@example.com', 'a long password', { admin: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app.close({ drop: true });
  });
  afterEach(() => context?.close());

  async function pageFor(acceptLanguage: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
    context = await browser.newContext({ extraHTTPHeaders: { 'Accept-Language': acceptLanguage }, viewport: { width: 1280, height: 800 }, ...options });
    return context.newPage();
  }

  /** The page speaks `code`: its lang and direction, no catalogue key in sight, and (but in English) no English sentence. */
  async function expectSpoken(page: Page, code: string, name: string): Promise<void> {
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe(code);
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe(code === 'ur' ? 'rtl' : 'ltr');
    const text = await readable(page);
    expect([name, KEYS.filter((key) => text.includes(key))]).toEqual([name, []]);
    if (code !== SOURCE_LANGUAGE) expect([name, englishTell(code).filter((run) => text.includes(run))]).toEqual([name, []]);
    if (['de', 'ja', 'ur'].includes(code)) await checkPage(page, `languages-${code}-${name}`);
  }

  it.each(LANGUAGES)('%s: the push form, the preview, the recipient\'s pages and sign-in speak it', async (code) => {
    const page = await pageFor(`${code};q=0.9, xx;q=0.1`);
    await page.goto(`${app.baseUrl}/`);
    await expectSpoken(page, code, 'push-form');

    await page.locator('#payload').fill('zz-9f3a-payload');
    await page.locator('#passphrase').fill('a passphrase');
    await page.locator('form.push button[type="submit"]').click();
    await page.waitForURL(/\/p\/[\w-]+\/preview$/);
    await expectSpoken(page, code, 'preview');
    const link = await page.locator('#secret-link').inputValue();

    await page.goto(link);
    await expectSpoken(page, code, 'recipient-passphrase');
    await page.locator('#passphrase').fill('a passphrase');
    await page.locator('main form button[type="submit"]').click();
    await expect(page.locator('#secret').inputValue()).resolves.toBe('zz-9f3a-payload');
    await expectSpoken(page, code, 'recipient-secret');

    await page.goto(`${app.baseUrl}/users/sign_in`);
    await expectSpoken(page, code, 'sign-in');
  });

  it('mirrors an Urdu page: the brand at the right, the navigation at the left', async () => {
    const page = await pageFor('ur');
    await page.goto(`${app.baseUrl}/`);
    const brand = (await page.locator('header .brand').boundingBox())!;
    const nav = (await page.locator('header nav.site').boundingBox())!;
    expect(brand.x).toBeGreaterThan(nav.x);
    const label = (await page.locator('label[for="payload"]').boundingBox())!;
    const field = (await page.locator('#payload').boundingBox())!;
    // The label starts at the field's right edge, where Urdu text starts.
    expect(Math.abs(label.x + label.width - (field.x + field.width))).toBeLessThan(2);
  });

  it('reads every tag of Accept-Language by weight, with region fallback', async () => {
    for (const [header, expected] of [
      ['tlh, ur;q=0.9, de;q=0.8', 'ur'],
      ['fr-CA, ja;q=0.5', 'fr'],
      ['de-AT', 'de'],
      ['de;q=0.2, ja;q=0.7', 'ja'],
      ['tlh', 'en'],
    ]) {
      const page = await pageFor(header);
      await page.goto(`${app.baseUrl}/users/sign_in`);
      expect([header, await page.locator('html').getAttribute('lang')]).toEqual([header, expected]);
      await context.close();
    }
  });

  it('speaks a signed-in person\'s preferred language whatever the browser asks, and ?locale= over both', async () => {
    await app.service(UsersService).create('urdu-reader@example.com', 'a long enough password');
    await app.service(DataSource).getRepository(UserEntity).update({ email: 'urdu-reader@example.com' }, { preferredLanguage: 'ur' });
    const page = await pageFor('de');
    await page.goto(`${app.baseUrl}/users/sign_in`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await page.getByLabel('E-Mail-Adresse').fill('urdu-reader@example.com');
    await page.getByLabel('Passwort').fill('a long enough password');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(`${app.baseUrl}/users/token`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ur');
    await page.goto(`${app.baseUrl}/`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ur');
    await page.goto(`${app.baseUrl}/?locale=ja`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ja');
  });

  it('switches language from the footer menu, and keeps it on the next pages (links, redirects, forms), without JavaScript', async () => {
    const page = await pageFor('en', { javaScriptEnabled: false });
    await page.goto(`${app.baseUrl}/`);
    await expect(page.locator('footer nav.languages a[aria-current]').textContent()).resolves.toBe('English');
    await page.locator('footer nav.languages').getByRole('link', { name: 'Deutsch' }).click();
    expect(new URL(page.url()).searchParams.get('locale')).toBe('de');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await expect(page.locator('h1').textContent()).resolves.toBe('Geheimnis senden');

    // A link of the page, then the redirect it answers with (sign-in first), keep German.
    await page.getByRole('link', { name: 'API-Tokens' }).first().click();
    await page.waitForURL(`${app.baseUrl}/users/sign_in?locale=de`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    // So does a form's answer.
    await page.getByLabel('E-Mail-Adresse').fill('nobody@example.com');
    await page.getByLabel('Passwort').fill('not the password');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await expect(page.locator('p.error').textContent()).resolves.toBe('E-Mail-Adresse oder Passwort ist falsch.');

    await page.locator('footer nav.languages').getByRole('link', { name: '日本語' }).click();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ja');
    await page.getByRole('link', { name: 'シークレットを送る' }).first().click();
    await page.waitForURL(`${app.baseUrl}/?locale=ja`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ja');
  });

  it('gives the preview\'s link, QR code and message in the recipient\'s language (push_locale), chosen on the form or after', async () => {
    const page = await pageFor('en');
    await page.goto(`${app.baseUrl}/`);
    await page.locator('#payload').fill('for a Japanese reader');
    await page.getByLabel('Language of the secret link').selectOption('ja');
    await page.getByRole('button', { name: 'Push it' }).click();
    expect(new URL(page.url()).searchParams.get('push_locale')).toBe('ja');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    const link = await page.locator('#secret-link').inputValue();
    expect(link).toMatch(/\/p\/[\w-]+\/r\?locale=ja$/);
    const message = await page.locator('#share-message').inputValue();
    expect(message).toContain(`シークレットのリンク: ${link}`);
    expect(message).toContain('リンクが使えるのは7 日、または5 回の閲覧までです');

    await page.getByLabel('Language of the secret link').selectOption('de');
    await page.getByRole('button', { name: 'Show the link in this language' }).click();
    await expect(page.locator('#secret-link').inputValue()).resolves.toMatch(/\?locale=de$/);
    await expect(page.locator('#share-message').inputValue()).resolves.toContain('Der Link funktioniert 7 Tage lang oder für 5 Aufrufe');

    const recipient = await context.newPage();
    await recipient.goto(link);
    await expect(recipient.locator('html').getAttribute('lang')).resolves.toBe('ja');
  });

  it('switches light and dark with the toggle and remembers it in the browser', async () => {
    const page = await pageFor('en');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${app.baseUrl}/`);
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
    const background = () => page.evaluate(() => (globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string }; document: { body: unknown } }).getComputedStyle((globalThis as unknown as { document: { body: unknown } }).document.body).backgroundColor);
    const light = await background();
    await toggle.click();
    await expect(page.locator('html').getAttribute('data-theme')).resolves.toBe('dark');
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
    expect(await background()).not.toBe(light);
    await checkPage(page, 'languages-dark-theme');
    await page.goto(`${app.baseUrl}/users/sign_in`);
    await expect(page.locator('html').getAttribute('data-theme')).resolves.toBe('dark');
    await page.getByRole('button', { name: 'Dark theme' }).click();
    await page.reload();
    await expect(page.locator('html').getAttribute('data-theme')).resolves.toBe('light');
  });

  it('blurs a text secret until it is clicked, and again 20 seconds later; without JavaScript it is plain', async () => {
    const create = async () => {
      const answer = await fetch(`${app.baseUrl}/api/v2/pushes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ push: { payload: 'blurred secret', retrieval_step: false } }),
      });
      return ((await answer.json()) as { html_url: string }).html_url;
    };
    const page = await pageFor('en');
    await page.clock.install();
    await page.goto(await create());
    const secret = page.locator('#secret');
    const filter = () => secret.evaluate((node) => (globalThis as unknown as { getComputedStyle(node: unknown): { filter: string } }).getComputedStyle(node).filter);
    expect(await filter()).toMatch(/^blur\(/);
    await expect(page.locator('#blur-hint').isVisible()).resolves.toBe(true);
    await secret.click();
    expect(await filter()).toBe('none');
    await page.clock.fastForward(19_000);
    expect(await filter()).toBe('none');
    await page.clock.fastForward(2_000);
    expect(await filter()).toMatch(/^blur\(/);
    await context.close();

    const plain = await pageFor('en', { javaScriptEnabled: false });
    await plain.goto(await create());
    expect(await plain.locator('#secret').evaluate((node) => (globalThis as unknown as { getComputedStyle(node: unknown): { filter: string } }).getComputedStyle(node).filter)).toBe('none');
    await expect(plain.locator('#secret').inputValue()).resolves.toBe('blurred secret');
  });
});
