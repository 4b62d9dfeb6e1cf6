import { DataSource } from 'typeorm';
import { UnseenWork, UserEntity, UsersService } from '@app/auth';
import { NotificationWorker } from '@app/notifications';
import { client } from '../support/http';
import { type Mailpit, startMailpit } from '../support/mailpit';
import { Visitor } from '../support/visitor';
import { startMailingTestApp, startTestApp, type TestApp } from '../support/test-app';

const page = async (app: TestApp, path: string, headers: Record<string, string> = {}) => {
  const answer = await fetch(`${app.baseUrl}${path}`, { headers, redirect: 'manual' });
  return { status: answer.status, headers: answer.headers, html: await answer.text() };
};
const langOf = (html: string): string | undefined => /<html lang="([^"]+)"/.exec(html)?.[1];
/** An administrator exists: the owner pages lead to the first run until one does. */
const withAdministrator = (app: TestApp) => app.service(UsersService).create('operator@example.com', 'a long password', { admin: true });
/** The address of a push's recipient page on this app. */
const pathOf = (app: TestApp, push: Record<string, unknown>): string => String(push.html_url).replace(app.baseUrl, '');

/**
 * Languages and the pages' manners over HTTP: the headers every answer carries (X-Robots-Tag,
 * Permissions-Policy), robots meta and /robots.txt, the settings (enabled languages, the default,
 * noindex, theme mode, blur), ?locale= kept on links and redirects, and the link mail in its
 * language through Mailpit. (languages.browser-spec.ts drives the pages in every language.)
 */
describe('languages and page manners over HTTP', () => {
  describe('by default', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ PWP__THROTTLING__MINUTE: '1000', PWP__THROTTLING__SECOND: '1000' });
      await withAdministrator(app);
    });
    afterAll(() => app.close({ drop: true }));

    it('keep search engines out: X-Robots-Tag on every answer, a robots meta tag on every page, /robots.txt disallowing all', async () => {
      const push = await client(app.baseUrl).createPush({ payload: 'robots' });
      for (const path of ['/', '/users/sign_in', pathOf(app, push), '/api/v2/version', '/api/v2/nowhere', '/robots.txt', '/assets/pages.css']) {
        expect([path, (await page(app, path)).headers.get('x-robots-tag')]).toEqual([path, 'noindex, nofollow']);
      }
      for (const path of ['/', '/users/sign_in', '/p/unknown-token-unknown-token']) {
        expect((await page(app, path)).html).toContain('<meta name="robots" content="noindex, nofollow">');
      }
      const robots = await page(app, '/robots.txt');
      expect(robots.status).toBe(200);
      expect(robots.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(robots.html).toBe('User-agent: *\nDisallow: /\n');
    });

    it('turn off every powerful browser feature but writing to the clipboard, on pages and the API alike', async () => {
      for (const path of ['/', '/api/v2/version', '/api/v2/nowhere', '/healthz']) {
        const policy = (await page(app, path)).headers.get('permissions-policy') ?? '';
        for (const feature of ['camera=()', 'microphone=()', 'geolocation=()', 'payment=()', 'usb=()', 'serial=()', 'clipboard-read=()', 'clipboard-write=(self)']) {
          expect([path, policy]).toEqual([path, expect.stringContaining(feature)]);
        }
        expect(policy.match(/=\([^)]+\)/g)).toEqual(['=(self)']);
      }
    });

    it('answer in the browser\'s language, say so (lang, Content-Language), and leave the API\'s JSON as it is', async () => {
      const german = await page(app, '/users/sign_in', { 'accept-language': 'de-CH, en;q=0.5' });
      expect(langOf(german.html)).toBe('de');
      expect(german.headers.get('content-language')).toBe('de');
      expect(german.html).toContain('<html lang="de" dir="ltr">');
      expect((await page(app, '/users/sign_in', { 'accept-language': 'ur' })).html).toContain('<html lang="ur" dir="rtl">');
      const version = await page(app, '/api/v2/version', { 'accept-language': 'de' });
      expect(version.headers.get('content-language')).toBeNull();
      const refused = await client(app.baseUrl).post('/api/v2/pushes', { push: { payload: '' } }, { 'accept-language': 'de' });
      expect(refused.body).toMatchObject({ errors: { payload: ['Payload is required.'] } });
    });

    it('keep a language chosen by ?locale= on the page\'s links, forms and redirects', async () => {
      const form = await page(app, '/?locale=ja', { 'accept-language': 'de' });
      expect(langOf(form.html)).toBe('ja');
      expect(form.html).toContain('href="/dashboard/active?locale=ja"');
      expect(form.html).toContain('action="/p/new?kind=text&amp;locale=ja"');
      expect(form.html).toContain('href="/assets/pages.css"');
      // The menu's own links name their language.
      expect(form.html).toContain('href="?locale&#x3D;de"');
      const redirect = await page(app, '/dashboard/active?locale=ja');
      expect(redirect.status).toBe(303);
      expect(redirect.headers.get('location')).toBe('/users/sign_in?locale=ja');
      // Without ?locale=, links stay as they are.
      expect((await page(app, '/', { 'accept-language': 'de' })).html).toContain('href="/dashboard/active"');
      // Not an available language: ignored, and not carried on.
      const unknown = await page(app, '/?locale=tlh', { 'accept-language': 'de' });
      expect(langOf(unknown.html)).toBe('de');
      expect(unknown.html).toContain('href="/dashboard/active"');
    });

    it('blur text and file payloads, marked for the script only (the text is in the page as it is)', async () => {
      const push = await client(app.baseUrl).createPush({ payload: 'blur me', retrieval_step: false });
      const secret = await page(app, pathOf(app, push));
      expect(secret.html).toMatch(/<textarea id="secret" readonly rows="6" spellcheck="false" data-blur aria-describedby="blur-hint">blur me<\/textarea>/);
      expect(secret.html).toContain('<p class="hint" id="blur-hint" hidden>');
    });

    it('offer the light/dark toggle (auto), to be shown by the script', async () => {
      const form = await page(app, '/');
      expect(form.html).toMatch(/<html lang="en" dir="ltr">/);
      expect(form.html).toContain('<button type="button" class="theme-toggle" aria-pressed="false" hidden>Dark theme</button>');
    });
  });

  describe('with the settings changed', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({
        PWP__ENABLED_LANGUAGE_CODES: 'en,ur,de',
        PWP__DEFAULT_LOCALE: 'ur',
        PWP__NOINDEX: 'false',
        PWP__THEME_MODE: 'dark',
        PWP__PW__ENABLE_BLUR: 'false',
      });
      await withAdministrator(app);
    });
    afterAll(() => app.close({ drop: true }));

    it('speak only the enabled languages, the default without a better choice', async () => {
      expect(langOf((await page(app, '/')).html)).toBe('ur');
      expect(langOf((await page(app, '/', { 'accept-language': 'ja, de;q=0.5' })).html)).toBe('de');
      expect(langOf((await page(app, '/?locale=ja')).html)).toBe('ur');
      const menu = /<nav class="languages"[^]*?<\/nav>/.exec((await page(app, '/')).html)![0];
      expect([...menu.matchAll(/hreflang="([^"]+)"/g)].map((match) => match[1])).toEqual(['de', 'en', 'ur']);
    });

    it('let search engines in but keep them out of secrets, lock the theme without a toggle, and show text plainly', async () => {
      const form = await page(app, '/');
      expect(form.headers.get('x-robots-tag')).toBeNull();
      expect(form.html).not.toContain('name="robots"');
      expect((await page(app, '/robots.txt')).html).toBe('User-agent: *\nDisallow: /p/\nDisallow: /f/\nDisallow: /r/\nDisallow: /api/\nDisallow: /users/\nDisallow: /dashboard/\n');
      expect(form.html).toContain('<html lang="ur" dir="rtl" data-theme="dark">');
      expect(form.html).not.toContain('theme-toggle');
      const push = await client(app.baseUrl).createPush({ payload: 'plain', retrieval_step: false });
      const secret = await page(app, pathOf(app, push));
      expect(secret.html).toContain('<textarea id="secret" readonly rows="6" spellcheck="false">plain</textarea>');
      expect(secret.html).not.toContain('blur-hint');
    });
  });

  it('refuse to start with a default language that is not enabled', async () => {
    await expect(startTestApp({ PWP__ENABLED_LANGUAGE_CODES: 'en,fr', PWP__DEFAULT_LOCALE: 'de' })).rejects.toThrow(
      'Invalid setting PWP__DEFAULT_LOCALE: must be one of the enabled languages (PWP__ENABLED_LANGUAGE_CODES: en, fr).',
    );
  });

  describe('the link mail', () => {
    let mailpit: Mailpit;
    let app: TestApp;

    beforeAll(async () => {
      mailpit = await startMailpit();
      // Mails' links are built on PWP__HOST_DOMAIN: here this app's own address. French is left out.
      app = await startMailingTestApp({ ...mailpit.env, PWP__ENABLED_LANGUAGE_CODES: 'en,de,ja,ur' });
    });
    afterAll(async () => {
      await app.close({ drop: true });
      await mailpit.stop();
    });
    beforeEach(() => mailpit.deleteAll());

    async function mailed(push: Record<string, unknown>) {
      const owner = { authorization: `Bearer ${await app.createUser(`owner-${Math.random()}@example.com`)}` };
      const created = await client(app.baseUrl).post('/api/v2/pushes', { push: { payload: 'mailed secret', ...push } }, owner);
      expect(created.status).toBe(201);
      await app.service(NotificationWorker).round();
      const [summary] = await mailpit.waitForMessages(1);
      return { created: created.body as { html_url: string }, mail: await mailpit.message(summary.ID) };
    }

    it('is written in notify_emails_to_locale, and its link opens the secret\'s page in that language', async () => {
      const { created, mail } = await mailed({ notify_emails_to: 'anna@example.com', notify_emails_to_locale: 'de' });
      expect(mail.Subject).toBe('Sie haben ein Geheimnis erhalten');
      expect(mail.Text).toContain(`${created.html_url}?locale=de\n`);
      // Handlebars writes = in attributes as &#x3D;, which any mail reader decodes.
      expect(mail.HTML.replaceAll('&#x3D;', '=')).toContain(`href="${created.html_url}?locale=de"`);
      expect(mail.HTML).toContain('<html lang="de" dir="ltr">');
      expect(mail.Text).toContain('weitere Aufrufe');
      expect(langOf((await page(app, `${created.html_url.replace(app.baseUrl, '')}?locale=de`, { 'accept-language': 'en' })).html)).toBe('de');
    });

    it('without a locale, is in the default language and its link carries none', async () => {
      const { created, mail } = await mailed({ notify_emails_to: 'bob@example.com' });
      expect(mail.Subject).toBe('You have received a secret');
      expect(mail.Text).toContain(`${created.html_url}\n`);
      expect(mail.Text).not.toContain('?locale=');
      expect(mail.HTML).toContain('<html lang="en" dir="ltr">');
    });

    it('to a push\'s owner (mailto: endpoint), is in the owner\'s preferred language', async () => {
      const token = await app.createUser('yuki@example.com');
      await app.service(DataSource).getRepository(UserEntity).update({ email: 'yuki@example.com' }, { preferredLanguage: 'ja' });
      const owner = { authorization: `Bearer ${token}` };
      expect((await client(app.baseUrl).post('/api/v2/webhooks', { url: 'mailto:yuki@example.com', events: ['push.created'] }, owner)).status).toBe(201);
      expect((await client(app.baseUrl).post('/api/v2/pushes', { push: { payload: 'x', name: 'Wi-Fi' } }, owner)).status).toBe(201);
      await app.service(NotificationWorker).round();
      const [summary] = await mailpit.waitForMessages(1);
      const mail = await mailpit.message(summary.ID);
      expect(mail.Subject).toBe('プッシュ “Wi-Fi” が作成されました');
      expect(mail.Text).toContain('種類: テキスト');
      expect(mail.HTML).toContain('<html lang="ja" dir="ltr">');
    });

    it('in a listed language the instance does not enable, is in the default language, its link without ?locale=', async () => {
      const { mail } = await mailed({ notify_emails_to: 'chloe@example.com', notify_emails_to_locale: 'fr' });
      expect(mail.Subject).toBe('You have received a secret');
      expect(mail.Text).not.toContain('?locale=');
    });
  });

  // Last: a second app in this process takes over the process-wide passport strategies.
  it('writes an account mail (here a reset) in the person\'s preferred language, its link opening the page in it', async () => {
    const mailpit = await startMailpit();
    const app = await startTestApp({ ...mailpit.env, PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true', PWP__HOST_DOMAIN: 'pwpush.example.com' });
    try {
      await withAdministrator(app);
      await app.service(UsersService).create('kenji@example.com', 'a long password');
      await app.service(DataSource).getRepository(UserEntity).update({ email: 'kenji@example.com' }, { preferredLanguage: 'ja' });
      const visitor = new Visitor(app.baseUrl);
      expect((await visitor.submit('/users/password/new', '/users/password/new', { 'user[email]': 'kenji@example.com' }, { 'accept-language': 'en' })).status).toBe(200);
      // The reset mail is issued after the answer (UnseenWork), so that its timing says nothing.
      await app.service(UnseenWork).settled();
      await app.service(NotificationWorker).round();
      const [summary] = await mailpit.waitForMessages(1);
      const mail = await mailpit.message(summary.ID);
      expect(mail.Subject).toBe('新しいパスワードを設定してください');
      expect(mail.HTML).toContain('<html lang="ja" dir="ltr">');
      const link = /https:\/\/pwpush\.example\.com(\/users\/password\/edit\?reset_password_token=\S+)/.exec(mail.Text)!;
      expect(link[1]).toMatch(/&locale=ja$/);
      // The link opens the page in Japanese, whatever the browser asks.
      expect(langOf((await visitor.get(link[1], { 'accept-language': 'en' })).html)).toBe('ja');
    } finally {
      await app.close({ drop: true });
      await mailpit.stop();
    }
  });
});
