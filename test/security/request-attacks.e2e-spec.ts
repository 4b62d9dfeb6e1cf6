import { UsersService } from '@app/auth';
import { FileAttachments } from '@app/files';
import { client, request } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const MESSAGE = 'Shrike-Message-4a1c7e02';
const ANSWER = 'Wryneck-Answer-9b3f6d18';
const PASSPHRASE = 'Bittern-Passphrase-2e8a5c71';
const FILE = 'Dipper-File-7c0e2b94';
const PASSWORD = 'a long password for attacks';

type Json = Record<string, any>;
interface Page {
  status: number;
  html: string;
  location: string | null;
}

const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const grantOf = (html: string): string | undefined => /name="grant" value="([^"]+)"/.exec(html)?.[1];
const swapCase = (t: string) => [...t].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

/**
 * An attacker's look at secret requests' pages and routes: tokens matched byte for byte, the
 * responder's form (CSRF, grant, multipart order), the requester's pages (someone else's request).
 */
describe('secret requests under attack', () => {
  let app: TestApp;
  let owner: Record<string, string>;
  let other: Record<string, string>;
  const api = () => client(app.baseUrl);

  const create = async (fields: Json = {}, as = owner) => {
    const answer = await api().post('/api/v2/requests', { request: { request: MESSAGE, close_after_duration: 11, ...fields } }, as);
    if (answer.status !== 201) throw new Error(`create failed: ${answer.status} ${answer.text}`);
    return answer.body.url_token as string;
  };
  const read = async (urlToken: string): Promise<Json> => (await api().get(`/api/v2/requests/${urlToken}`, owner)).body;
  const fileRows = async (urlToken: string) =>
    Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments f JOIN requests r ON r.id = f.request_id WHERE r.url_token = ?', [urlToken]))[0].n);
  const auditKinds = async (urlToken: string): Promise<string[]> => (await api().get(`/api/v2/requests/${urlToken}/audit`, owner)).body.logs.map((entry: Json) => entry.kind);

  /** A browser with its cookie jar: GET, urlencoded POST, and a multipart POST of parts in the order given. */
  const browser = (visitor = new Visitor(app.baseUrl)) => {
    const send = async (method: string, path: string, body?: URLSearchParams | FormData): Promise<Page> => {
      const cookie = [...visitor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const response = await fetch(`${app.baseUrl}${path}`, { method, body, redirect: 'manual', headers: cookie ? { cookie } : {} });
      for (const line of response.headers.getSetCookie()) {
        const [name, value] = line.split(';')[0].split('=');
        visitor.cookies.set(name, value);
      }
      return { status: response.status, html: await response.text(), location: response.headers.get('location') };
    };
    return {
      visitor,
      get: (path: string) => send('GET', path),
      post: (path: string, fields: Record<string, string>) => send('POST', path, new URLSearchParams(fields)),
      multipart: (path: string, parts: ([string, string] | [string, string, string])[]) => {
        const form = new FormData();
        for (const [name, value, filename] of parts) {
          if (filename === undefined) form.append(name, value);
          else form.append(name, new Blob([value], { type: 'text/plain' }), filename);
        }
        return send('POST', path, form);
      },
      csrf: async () => csrfOf((await send('GET', '/users/sign_in')).html),
    };
  };

  beforeAll(async () => {
    app = await startTestApp({ PWP__FILES__MAX_FILE_SIZE: '64KiB' });
    const users = app.service(UsersService);
    owner = { authorization: `Bearer ${(await users.create('attacked-asker@example.com', PASSWORD)).api_token}` };
    other = { authorization: `Bearer ${(await users.create('attacker@example.com', PASSWORD)).api_token}` };
  });
  afterAll(() => app.close({ drop: true }));

  /** MySQL/MariaDB's default collation ignores case: a case-swapped token must not find a request (it would cut the token's randomness). */
  describe("a request's token is matched byte for byte", () => {
    it.each<[string, (t: string) => string]>([
      ['in swapped case', swapCase],
      ['in upper case', (t) => t.toUpperCase()],
      ['in lower case', (t) => t.toLowerCase()],
    ])('the token %s is a 404 for the owner, the responder page and the answer', async (_name, variant) => {
      let urlToken = await create();
      // A token with letters whose case can change (base64url has digits, '-' and '_' too).
      while (variant(urlToken) === urlToken) urlToken = await create();
      const changed = variant(urlToken);
      expect((await api().get(`/api/v2/requests/${changed}`, owner)).status).toBe(404);
      expect((await browser().get(`/requests/${changed}`)).status).toBe(404);
      const answer = await request(app.baseUrl, 'PATCH', `/api/v2/requests/${changed}/respond`, { json: { request: { response: ANSWER } } });
      expect(answer.status).toBe(404);
      expect((await read(urlToken)).state).toBe('open');
    });
  });

  describe("the responder's form", () => {
    it('refuses a multipart answer whose CSRF token comes after its file: nothing stored, still open', async () => {
      const urlToken = await create({ response_file_attachments: true });
      const person = browser();
      const csrf = csrfOf((await person.get(`/requests/${urlToken}`)).html);
      const answer = await person.multipart(`/requests/${urlToken}`, [
        ['request[response]', ANSWER],
        ['request[files][]', FILE, 'late-csrf.txt'],
        ['_csrf', csrf],
      ]);
      expect(answer.status).toBe(403);
      expect(await fileRows(urlToken)).toBe(0);
      expect((await read(urlToken)).state).toBe('open');
    });

    it('refuses a multipart answer without a CSRF token, with or without files', async () => {
      const urlToken = await create({ response_file_attachments: true });
      const person = browser();
      await person.get(`/requests/${urlToken}`);
      expect((await person.multipart(`/requests/${urlToken}`, [['request[response]', ANSWER]])).status).toBe(403);
      expect((await person.multipart(`/requests/${urlToken}`, [['request[response]', ANSWER], ['request[files][]', FILE, 'no-csrf.txt']])).status).toBe(403);
      // An empty file input first (a browser's "nothing chosen"), then a real file: still checked.
      expect(
        (await person.multipart(`/requests/${urlToken}`, [['request[response]', ANSWER], ['request[files][]', '', ''], ['request[files][]', FILE, 'no-csrf.txt']])).status,
      ).toBe(403);
      expect(await fileRows(urlToken)).toBe(0);
      expect((await read(urlToken)).state).toBe('open');
    });

    it("refuses another request's grant, a forged one, and a grant after the answer; none is counted as a guess", async () => {
      const first = await create({ passphrase: PASSPHRASE, response_file_attachments: true });
      const second = await create({ passphrase: PASSPHRASE, response_file_attachments: true });
      const person = browser();
      const csrf = await person.csrf();
      const opened = await person.post(`/requests/${first}/access`, { _csrf: csrf, passphrase: PASSPHRASE });
      const grant = grantOf(opened.html)!;
      expect(grant).toBeDefined();
      expect(opened.html).not.toContain(PASSPHRASE);
      // The first request's grant on the second, urlencoded and multipart (checked at the file).
      expect((await person.post(`/requests/${second}`, { _csrf: csrf, grant, 'request[response]': ANSWER })).status).toBe(401);
      expect((await person.multipart(`/requests/${second}`, [['_csrf', csrf], ['grant', grant], ['request[files][]', FILE, 'x.txt']])).status).toBe(401);
      const forged = Buffer.from(grant, 'base64url');
      forged[forged.length - 1] ^= 1;
      expect((await person.post(`/requests/${second}`, { _csrf: csrf, grant: forged.toString('base64url'), 'request[response]': ANSWER })).status).toBe(401);
      expect(await fileRows(second)).toBe(0);
      expect((await read(second)).state).toBe('open');
      expect(await auditKinds(second)).toEqual(['creation']);
      // The grant answers its own request once; replayed, the 409, the first answer kept.
      expect((await person.post(`/requests/${first}`, { _csrf: csrf, grant, 'request[response]': ANSWER })).status).toBe(200);
      expect((await person.post(`/requests/${first}`, { _csrf: csrf, grant, 'request[response]': 'second' })).status).toBe(409);
      expect((await read(first)).response).toBe(ANSWER);
    });

    it('does not renew a grant on a refused answer: it is good for two hours from the passphrase, no longer', async () => {
      const urlToken = await create({ passphrase: PASSPHRASE });
      const person = browser();
      const csrf = await person.csrf();
      const grant = grantOf((await person.post(`/requests/${urlToken}/access`, { _csrf: csrf, passphrase: PASSPHRASE })).html)!;
      app.clock.advance(110 * 60 * 1000);
      // An empty answer is refused (422) with the form again: its grant must be the one sent, not a new one.
      const refused = await person.post(`/requests/${urlToken}`, { _csrf: csrf, grant, 'request[response]': '' });
      expect(refused.status).toBe(422);
      const again = grantOf(refused.html)!;
      expect(again).toBeDefined();
      app.clock.advance(20 * 60 * 1000);
      // Two hours and ten minutes after the passphrase: neither grant answers.
      expect((await person.post(`/requests/${urlToken}`, { _csrf: csrf, grant: again, 'request[response]': ANSWER })).status).toBe(401);
      expect((await person.post(`/requests/${urlToken}`, { _csrf: csrf, grant, 'request[response]': ANSWER })).status).toBe(401);
      expect((await read(urlToken)).state).toBe('open');
    });

    it('verifies no more than the limit of guesses when they come all at once', async () => {
      const urlToken = await create({ passphrase: PASSPHRASE });
      const guesses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request(app.baseUrl, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { json: { request: { response: ANSWER } }, headers: { 'x-passphrase': `burst-${i}` } }),
        ),
      );
      const statuses = guesses.map((guess) => guess.status);
      // Five wrong guesses are tried (401), every other is refused untried (429).
      expect(statuses.filter((status) => status === 401)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(15);
      // A push's passphrase is counted by the same limiter, the same way.
      const push = await api().createPush({ payload: ANSWER, passphrase: PASSPHRASE });
      const pushGuesses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api().get(`/api/v2/pushes/${push.url_token}`, { 'x-passphrase': `burst-${i}` })),
      );
      expect(pushGuesses.filter((guess) => guess.status === 401)).toHaveLength(5);
    });

    it('shares the passphrase guess limit between the page and the API', async () => {
      const urlToken = await create({ passphrase: PASSPHRASE });
      const person = browser();
      const csrf = await person.csrf();
      for (let i = 0; i < 3; i++) expect((await person.post(`/requests/${urlToken}/access`, { _csrf: csrf, passphrase: `wrong-${i}` })).status).toBe(401);
      for (let i = 0; i < 2; i++) {
        const api = await request(app.baseUrl, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { json: { request: { response: ANSWER } }, headers: { 'x-passphrase': `bad-${i}` } });
        expect(api.status).toBe(401);
      }
      expect((await person.post(`/requests/${urlToken}/access`, { _csrf: csrf, passphrase: PASSPHRASE })).status).toBe(429);
      const api = await request(app.baseUrl, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { json: { request: { response: ANSWER } }, headers: { 'x-passphrase': PASSPHRASE } });
      expect(api.status).toBe(429);
    });
  });

  it("answers 404 for a file link taken before the close, on either side's file", async () => {
    const form = new FormData();
    form.append('request[request]', MESSAGE);
    form.append('request[response_file_attachments]', 'true');
    form.append('request[files][]', new Blob([FILE], { type: 'text/plain' }), 'theirs.txt');
    const urlToken = (await api().raw('POST', '/api/v2/requests', { body: form, headers: owner })).body.url_token as string;
    const theirs = /<a href="([^"]+)" download>theirs\.txt<\/a>/.exec((await browser().get(`/requests/${urlToken}`)).html)![1];
    const answer = new FormData();
    answer.append('request[files][]', new Blob([ANSWER], { type: 'text/plain' }), 'answer.txt');
    expect((await api().raw('PATCH', `/api/v2/requests/${urlToken}/respond`, { body: answer })).status).toBe(200);
    const link = new URL((await read(urlToken)).files[0].url);
    const answered = link.pathname + link.search;
    expect((await fetch(`${app.baseUrl}${theirs}`)).status).toBe(200);
    expect((await fetch(`${app.baseUrl}${answered}`)).status).toBe(200);
    expect((await api().delete(`/api/v2/requests/${urlToken}`, owner)).status).toBe(200);
    expect((await fetch(`${app.baseUrl}${theirs}`)).status).toBe(404);
    expect((await fetch(`${app.baseUrl}${answered}`)).status).toBe(404);
  });

  it("leaves no answer file behind when the owner closes the request while the answer's files are being attached", async () => {
    const urlToken = await create({ response_file_attachments: true });
    const files = app.service(FileAttachments);
    const attach = files.attachToRequest.bind(files);
    // The owner's close lands between the answer's UPDATE and its files' attachment.
    const spy = jest.spyOn(files, 'attachToRequest').mockImplementationOnce(async (...args) => {
      expect((await api().delete(`/api/v2/requests/${urlToken}`, owner)).status).toBe(200);
      return attach(...args);
    });
    try {
      const form = new FormData();
      form.append('request[response]', ANSWER);
      form.append('request[files][]', new Blob([FILE], { type: 'text/plain' }), 'late.txt');
      const answer = await api().raw('PATCH', `/api/v2/requests/${urlToken}/respond`, { body: form });
      expect(answer.status).toBeLessThan(500);
    } finally {
      spy.mockRestore();
    }
    expect((await read(urlToken)).state).toBe('closed');
    // Closing destroys both sides' files at once: none waits for the sweep.
    expect(await fileRows(urlToken)).toBe(0);
  });

  describe("the requester's pages", () => {
    const signedIn = async (email: string) => {
      const visitor = new Visitor(app.baseUrl);
      expect((await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD })).status).toBe(303);
      return browser(visitor);
    };

    it("show someone else's request as the neutral 404, and will not close it", async () => {
      const urlToken = await create();
      await request(app.baseUrl, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { json: { request: { response: ANSWER } } });
      const attacker = await signedIn('attacker@example.com');
      const page = await attacker.get(`/dashboard/requests/${urlToken}`);
      expect(page.status).toBe(404);
      expect(page.html).not.toContain(ANSWER);
      expect(page.html).not.toContain(MESSAGE);
      expect((await attacker.get(`/dashboard/requests/${urlToken}/close`)).status).toBe(404);
      // Signed in, the sign-in page redirects: the form token from the request form instead.
      const csrf = csrfOf((await attacker.get('/dashboard/requests/new')).html);
      expect(csrf).not.toBe('');
      expect((await attacker.post(`/dashboard/requests/${urlToken}/close`, { _csrf: csrf })).status).toBe(404);
      expect((await read(urlToken)).state).toBe('ready');
      expect((await api().get(`/api/v2/requests/${urlToken}`, other)).status).toBe(403);
    });

    it("checks the request form's CSRF token at its first file, before any file is received", async () => {
      const asker = await signedIn('attacked-asker@example.com');
      const before = Number((await app.query('SELECT COUNT(*) AS n FROM requests'))[0].n);
      // A file over the size limit: refused as too large only once the form is known to be genuine.
      const big = 'x'.repeat(65 * 1024);
      const forged = await asker.multipart('/dashboard/requests/new', [['request[request]', MESSAGE], ['request[files][]', big, 'big.txt']]);
      expect(forged.status).toBe(403);
      const csrf = csrfOf((await asker.get('/dashboard/requests/new')).html);
      const late = await asker.multipart('/dashboard/requests/new', [['request[request]', MESSAGE], ['request[files][]', big, 'big.txt'], ['_csrf', csrf]]);
      expect(late.status).toBe(403);
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM requests'))[0].n)).toBe(before);
      // The genuine form, token first, still takes its files.
      const made = await asker.multipart('/dashboard/requests/new', [['_csrf', csrf], ['request[request]', MESSAGE], ['request[files][]', FILE, 'form.txt']]);
      expect(made.status).toBe(303);
      const urlToken = /^\/dashboard\/requests\/([\w-]+)$/.exec(made.location ?? '')![1];
      expect(await fileRows(urlToken)).toBe(1);
    });

    it('will not close a request without the CSRF token', async () => {
      const urlToken = await create();
      const asker = await signedIn('attacked-asker@example.com');
      expect((await asker.post(`/dashboard/requests/${urlToken}/close`, {})).status).toBe(403);
      expect((await read(urlToken)).state).toBe('open');
    });
  });
});
