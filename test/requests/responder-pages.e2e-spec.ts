import { client } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const MESSAGE = 'Heron-Message-1f6b2c90';
const ANSWER = 'Kestrel-Answer-8d3e41a7';
const SECOND_ANSWER = 'Merlin-Answer-2b9c05e4';
const PASSPHRASE = 'Osprey-Passphrase-5c7a19d2';
const RESPONDER_FILE = 'Avocet-ResponderFile-73f0e8b1';
const REQUESTER_FILE = 'Plover-RequesterFile-6e2d9a40';
const REQUESTER_EMAIL = 'asker@example.com';
const HOUR_MS = 60 * 60 * 1000;

type Json = Record<string, any>;
interface Page {
  status: number;
  html: string;
  headers: Headers;
}

const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const grantOf = (html: string): string | undefined => /name="grant" value="([^"]+)"/.exec(html)?.[1];

/**
 * The responder's pages (`/requests/:url_token`) over HTTP: what a GET shows and audits, the
 * passphrase and the retrieval step, the answer by form (text, and multipart with a file) as the
 * requester then reads it through the API, one answer only, CSRF, refusals as pages, the 404s,
 * the headers every page has, and HEAD/OPTIONS changing nothing.
 */
describe("the responder's pages (/requests/:url_token)", () => {
  let app: TestApp;
  let owner: Record<string, string>;
  const api = () => client(app.baseUrl);

  const create = async (fields: Json = {}) => {
    const answer = await api().post('/api/v2/requests', { request: { request: MESSAGE, close_after_duration: 11, ...fields } }, owner);
    if (answer.status !== 201) throw new Error(`create failed: ${answer.status} ${answer.text}`);
    return answer.body.url_token as string;
  };
  const auditKinds = async (urlToken: string): Promise<string[]> => (await api().get(`/api/v2/requests/${urlToken}/audit`, owner)).body.logs.map((entry: Json) => entry.kind);
  const filesOf = async (urlToken: string) =>
    Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments f JOIN requests r ON r.id = f.request_id WHERE r.url_token = ?', [urlToken]))[0].n);
  const read = async (urlToken: string): Promise<Json> => (await api().get(`/api/v2/requests/${urlToken}`, owner)).body;

  /** A browser: its cookies (the CSRF cookie), GETs and form POSTs (urlencoded, or multipart for a FormData). */
  const browser = () => {
    const visitor = new Visitor(app.baseUrl);
    const send = async (method: string, path: string, body?: URLSearchParams | FormData): Promise<Page> => {
      const cookie = [...visitor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const response = await fetch(`${app.baseUrl}${path}`, { method, body, redirect: 'manual', headers: cookie ? { cookie } : {} });
      for (const line of response.headers.getSetCookie()) {
        const [name, value] = line.split(';')[0].split('=');
        visitor.cookies.set(name, value);
      }
      return { status: response.status, html: method === 'HEAD' ? '' : await response.text(), headers: response.headers };
    };
    return {
      get: (path: string) => send('GET', path),
      send,
      post: (path: string, fields: Record<string, string>) => send('POST', path, new URLSearchParams(fields)),
      /** The CSRF token of this browser, from a page that neither shows nor audits a request. */
      csrf: async () => csrfOf((await send('GET', '/users/sign_in')).html),
    };
  };
  /** Opens a request without passphrase or step and answers it by the form, as a person would. */
  const answerByForm = async (urlToken: string, response: string) => {
    const person = browser();
    const page = await person.get(`/requests/${urlToken}`);
    // An answered request's page has no form: the browser's token then comes from another page.
    return person.post(`/requests/${urlToken}`, { _csrf: csrfOf(page.html) || (await person.csrf()), 'request[response]': response });
  };

  beforeAll(async () => {
    app = await startTestApp({ PWP__FILES__MAX_FILE_SIZE: '64KiB', PWP__FILES__MAX_FILE_UPLOADS: '3' });
    owner = { authorization: `Bearer ${await app.createUser(REQUESTER_EMAIL)}` };
  });
  afterAll(() => app.close({ drop: true }));

  it("shows the message on a GET, audited as a view, the requester's address only with include_requestor, with the pages' headers", async () => {
    const plain = await create();
    const page = await browser().get(`/requests/${plain}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(MESSAGE);
    expect(page.html).not.toContain(REQUESTER_EMAIL);
    expect(page.html).toContain(`action="/requests/${plain}"`);
    expect(page.html).not.toContain('name="grant"');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*script-src 'nonce-[0-9a-f]+'.*frame-ancestors 'none'/);
    expect(await auditKinds(plain)).toEqual(['creation', 'view']);
    // A request that takes no files: a plain form, no file field.
    expect(page.html).not.toContain('multipart/form-data');

    const signed = await create({ include_requestor: true, response_file_attachments: true });
    const withEmail = await browser().get(`/requests/${signed}`);
    expect(withEmail.html).toContain(REQUESTER_EMAIL);
    expect(withEmail.html).toContain('enctype="multipart/form-data"');
    expect(withEmail.html).toContain('name="request[files][]"');
  });

  it("lists the requester's own files for the responder, as short-lived download links", async () => {
    const form = new FormData();
    form.append('request[request]', MESSAGE);
    form.append('request[files][]', new Blob([REQUESTER_FILE], { type: 'text/plain' }), 'form-to-fill.txt');
    const created = await api().raw('POST', '/api/v2/requests', { body: form, headers: owner });
    expect(created.status).toBe(201);
    const page = await browser().get(`/requests/${created.body.url_token}`);
    const link = /<a href="([^"]+)" download>form-to-fill\.txt<\/a>/.exec(page.html)?.[1];
    expect(link).toMatch(new RegExp(`^/api/v2/requests/${created.body.url_token}/files/`));
    expect(await (await fetch(`${app.baseUrl}${link}`)).text()).toBe(REQUESTER_FILE);
  });

  it('changes nothing on HEAD (405) or OPTIONS: no audit entry', async () => {
    const urlToken = await create();
    const head = await browser().send('HEAD', `/requests/${urlToken}`);
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    const options = await browser().send('OPTIONS', `/requests/${urlToken}`);
    expect(options.status).not.toBe(200);
    expect(await auditKinds(urlToken)).toEqual(['creation']);
    expect((await read(urlToken)).state).toBe('open');
  });

  it('asks for the passphrase first: a wrong one is audited and refused, the right one shows the request, and the answer goes with its grant', async () => {
    const urlToken = await create({ passphrase: PASSPHRASE, include_requestor: true });
    const person = browser();
    const form = await person.get(`/requests/${urlToken}`);
    expect(form.status).toBe(200);
    expect(form.html).toContain(`action="/requests/${urlToken}/access"`);
    expect(form.html).toContain('type="password"');
    expect(form.html).not.toContain(MESSAGE);
    expect(form.html).not.toContain(REQUESTER_EMAIL);
    expect(await auditKinds(urlToken)).toEqual(['creation']);

    const wrong = await person.post(`/requests/${urlToken}/access`, { _csrf: csrfOf(form.html), passphrase: 'not it' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).not.toContain(MESSAGE);
    expect(wrong.html).toContain('type="password"');
    expect(await auditKinds(urlToken)).toEqual(['creation', 'failed_passphrase']);

    const right = await person.post(`/requests/${urlToken}/access`, { _csrf: csrfOf(wrong.html), passphrase: PASSPHRASE });
    expect(right.status).toBe(200);
    expect(right.html).toContain(MESSAGE);
    expect(right.html).toContain(REQUESTER_EMAIL);
    // The page carries a grant, never the passphrase.
    expect(right.html).not.toContain(PASSPHRASE);
    const grant = grantOf(right.html)!;
    expect(grant).toBeDefined();
    expect(await auditKinds(urlToken)).toEqual(['creation', 'failed_passphrase', 'view']);

    // Without the grant (or with a forged one), the answer is refused and nothing is stored.
    const withoutGrant = await person.post(`/requests/${urlToken}`, { _csrf: csrfOf(right.html), 'request[response]': ANSWER });
    expect(withoutGrant.status).toBe(401);
    const forged = await person.post(`/requests/${urlToken}`, { _csrf: csrfOf(right.html), grant: `${grant.slice(0, -4)}AAAA`, 'request[response]': ANSWER });
    expect(forged.status).toBe(401);
    expect(forged.html).toContain('type="password"');
    expect((await read(urlToken)).state).toBe('open');

    const sent = await person.post(`/requests/${urlToken}`, { _csrf: csrfOf(right.html), grant, 'request[response]': ANSWER });
    expect(sent.status).toBe(200);
    expect(sent.html).not.toContain(ANSWER);
    expect(sent.html).not.toContain(MESSAGE);
    const answered = await read(urlToken);
    expect([answered.state, answered.response]).toEqual(['ready', ANSWER]);
  });

  it('checks a multipart answer by its grant at the first file, before a byte of it is stored', async () => {
    const urlToken = await create({ passphrase: PASSPHRASE, response_file_attachments: true });
    const person = browser();
    const opened = await person.post(`/requests/${urlToken}/access`, { _csrf: await person.csrf(), passphrase: PASSPHRASE });
    const grant = grantOf(opened.html)!;
    const answer = (withGrant?: string) => {
      const form = new FormData();
      form.append('_csrf', csrfOf(opened.html));
      if (withGrant !== undefined) form.append('grant', withGrant);
      form.append('request[response]', ANSWER);
      form.append('request[files][]', new Blob([RESPONDER_FILE], { type: 'text/plain' }), 'staging.key');
      return person.send('POST', `/requests/${urlToken}`, form);
    };
    expect((await answer()).status).toBe(401);
    expect((await answer(`${grant.slice(0, -4)}AAAA`)).status).toBe(401);
    expect(await filesOf(urlToken)).toBe(0);
    expect((await read(urlToken)).state).toBe('open');

    expect((await answer(grant)).status).toBe(200);
    const answered = await read(urlToken);
    expect(answered.response).toBe(ANSWER);
    expect(await (await fetch(answered.files[0].url)).text()).toBe(RESPONDER_FILE);
  });

  it("refuses a grant once it has run out (two hours) without counting a guess: the passphrase again", async () => {
    const urlToken = await create({ passphrase: PASSPHRASE });
    const person = browser();
    const opened = await person.post(`/requests/${urlToken}/access`, { _csrf: await person.csrf(), passphrase: PASSPHRASE });
    const grant = grantOf(opened.html)!;
    app.clock.advance(2 * HOUR_MS + 1000);
    const late = await person.post(`/requests/${urlToken}`, { _csrf: csrfOf(opened.html), grant, 'request[response]': ANSWER });
    expect(late.status).toBe(401);
    expect(late.html).toContain(`action="/requests/${urlToken}/access"`);
    expect(late.html).not.toContain(ANSWER);
    expect(await auditKinds(urlToken)).toEqual(['creation', 'view']);
    expect((await read(urlToken)).state).toBe('open');
  });

  it("locks the passphrase after five wrong guesses in a minute, as a push's page does (429, even for the right one)", async () => {
    const urlToken = await create({ passphrase: PASSPHRASE });
    const person = browser();
    const csrf = await person.csrf();
    for (let guess = 0; guess < 5; guess++) expect((await person.post(`/requests/${urlToken}/access`, { _csrf: csrf, passphrase: `guess ${guess}` })).status).toBe(401);
    const locked = await person.post(`/requests/${urlToken}/access`, { _csrf: csrf, passphrase: PASSPHRASE });
    expect(locked.status).toBe(429);
    expect(locked.html).not.toContain(MESSAGE);
    app.clock.advance(61_000);
    expect((await person.post(`/requests/${urlToken}/access`, { _csrf: csrf, passphrase: PASSPHRASE })).html).toContain(MESSAGE);
  });

  it('puts the request behind a button with the retrieval step: the GET neither shows nor audits it', async () => {
    const urlToken = await create({ retrieval_step: true });
    const person = browser();
    const step = await person.get(`/requests/${urlToken}`);
    expect(step.status).toBe(200);
    expect(step.html).not.toContain(MESSAGE);
    expect(step.html).toContain(`action="/requests/${urlToken}/access"`);
    expect(step.html).not.toContain('type="password"');
    expect(await auditKinds(urlToken)).toEqual(['creation']);
    const opened = await person.post(`/requests/${urlToken}/access`, { _csrf: csrfOf(step.html) });
    expect(opened.status).toBe(200);
    expect(opened.html).toContain(MESSAGE);
    expect(await auditKinds(urlToken)).toEqual(['creation', 'view']);
  });

  it('refuses a POST without its CSRF token (403), storing nothing, files included', async () => {
    const urlToken = await create({ response_file_attachments: true });
    const person = browser();
    await person.get(`/requests/${urlToken}`);
    expect((await person.post(`/requests/${urlToken}`, { 'request[response]': ANSWER })).status).toBe(403);
    expect((await person.post(`/requests/${urlToken}`, { _csrf: 'forged', 'request[response]': ANSWER })).status).toBe(403);
    const form = new FormData();
    form.append('request[response]', ANSWER);
    form.append('request[files][]', new Blob([RESPONDER_FILE], { type: 'text/plain' }), 'staging.key');
    expect((await person.send('POST', `/requests/${urlToken}`, form)).status).toBe(403);
    expect((await person.post(`/requests/${urlToken}/access`, {})).status).toBe(403);
    expect(await filesOf(urlToken)).toBe(0);
    expect((await read(urlToken)).state).toBe('open');
  });

  it('takes the answer by form, thanks without echoing it, and the requester reads it; a second answer changes nothing', async () => {
    const urlToken = await create();
    const sent = await answerByForm(urlToken, ANSWER);
    expect(sent.status).toBe(200);
    expect(sent.html).not.toContain(ANSWER);
    expect(sent.html).not.toContain(MESSAGE);
    expect(sent.headers.get('cache-control')).toBe('no-store');
    const answered = await read(urlToken);
    expect([answered.state, answered.response, answered.files]).toEqual(['ready', ANSWER, []]);

    const again = await answerByForm(urlToken, SECOND_ANSWER);
    expect(again.status).toBe(409);
    expect(again.html).not.toContain(MESSAGE);
    expect((await read(urlToken)).response).toBe(ANSWER);
    // The page itself now says so, without showing the request.
    const later = await browser().get(`/requests/${urlToken}`);
    expect(later.status).toBe(409);
    expect(later.html).not.toContain(MESSAGE);
    expect(await auditKinds(urlToken)).toEqual(['creation', 'view', 'response', 'response_view', 'response_view']);
  });

  it("takes an answer with a file (multipart, streamed and encrypted), which the requester downloads as sent", async () => {
    const urlToken = await create({ response_file_attachments: true });
    const person = browser();
    const page = await person.get(`/requests/${urlToken}`);
    const form = new FormData();
    form.append('_csrf', csrfOf(page.html));
    form.append('request[response]', ANSWER);
    form.append('request[files][]', new Blob([RESPONDER_FILE], { type: 'text/plain' }), 'staging.key');
    // What a browser sends for a second, empty file input: no file.
    form.append('request[files][]', new Blob([], { type: 'application/octet-stream' }), '');
    const sent = await person.send('POST', `/requests/${urlToken}`, form);
    expect(sent.status).toBe(200);
    expect(sent.html).not.toContain(ANSWER);
    const answered = await read(urlToken);
    expect(answered.response).toBe(ANSWER);
    expect(answered.files.map((file: Json) => [file.filename, file.size])).toEqual([['staging.key', RESPONDER_FILE.length]]);
    expect(await (await fetch(answered.files[0].url)).text()).toBe(RESPONDER_FILE);
    expect(await filesOf(urlToken)).toBe(1);
  });

  it('says what to correct, never a 500: an empty answer, one over the text limit, files over their limit or where none are taken', async () => {
    const urlToken = await create({ response_file_attachments: true });
    const person = browser();
    const page = await person.get(`/requests/${urlToken}`);
    const csrf = csrfOf(page.html);

    const empty = await person.post(`/requests/${urlToken}`, { _csrf: csrf, 'request[response]': '   ' });
    expect(empty.status).toBe(422);
    expect(empty.html).toContain('id="response-error"');
    expect(empty.html).toContain('aria-invalid="true"');
    expect(empty.html).toContain(MESSAGE);

    const tooLong = await person.post(`/requests/${urlToken}`, { _csrf: csrf, 'request[response]': 'x'.repeat(1_048_577) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.html).toContain('id="response-error"');
    expect(tooLong.html).toContain('1,048,576');

    const tooMany = new FormData();
    tooMany.append('_csrf', csrf);
    tooMany.append('request[response]', ANSWER);
    for (let file = 0; file <= app.settings.files.maxUploads; file++) tooMany.append('request[files][]', new Blob([`file ${file}`]), `f${file}.txt`);
    const refusedFiles = await person.send('POST', `/requests/${urlToken}`, tooMany);
    expect(refusedFiles.status).toBe(422);
    expect(refusedFiles.html).toContain('id="files-error"');
    // The text sent is given back, to send again.
    expect(refusedFiles.html).toContain(ANSWER);

    const tooLarge = new FormData();
    tooLarge.append('_csrf', csrf);
    tooLarge.append('request[files][]', new Blob([Buffer.alloc(app.settings.files.maxFileBytes + 1)]), 'big.bin');
    const refusedSize = await person.send('POST', `/requests/${urlToken}`, tooLarge);
    expect(refusedSize.status).toBe(413);
    expect(refusedSize.html).toContain('role="alert"');
    expect(refusedSize.html).toContain(MESSAGE);

    const noFiles = await create();
    const plain = await person.get(`/requests/${noFiles}`);
    const forgedFiles = new FormData();
    forgedFiles.append('_csrf', csrfOf(plain.html));
    forgedFiles.append('request[response]', ANSWER);
    forgedFiles.append('request[files][]', new Blob([RESPONDER_FILE]), 'f.txt');
    expect((await person.send('POST', `/requests/${noFiles}`, forgedFiles)).status).toBe(422);

    expect((await read(urlToken)).state).toBe('open');
    expect((await read(noFiles)).state).toBe('open');
    expect([await filesOf(urlToken), await filesOf(noFiles)]).toEqual([0, 0]);
  });

  it('answers a closed or unknown request with the 404 page, before any passphrase', async () => {
    const urlToken = await create({ passphrase: PASSPHRASE });
    expect((await api().delete(`/api/v2/requests/${urlToken}`, owner)).status).toBe(200);
    const person = browser();
    for (const path of [`/requests/${urlToken}`, '/requests/NoSuchTokenNoSuchToken12']) {
      const gone = await person.get(path);
      expect(gone.status).toBe(404);
      expect(gone.headers.get('content-type')).toMatch(/^text\/html/);
      expect(gone.html).not.toContain('type="password"');
    }
    const csrf = await person.csrf();
    expect((await person.post(`/requests/${urlToken}/access`, { _csrf: csrf, passphrase: PASSPHRASE })).status).toBe(404);
    expect((await person.post(`/requests/${urlToken}`, { _csrf: csrf, 'request[response]': ANSWER })).status).toBe(404);
    expect(await auditKinds(urlToken)).toEqual(['creation', 'expire']);
  });

  it('answers 404 on every page while requests are off, even for a request that exists', async () => {
    const urlToken = await create();
    const off = await startTestApp({ PWP__ENABLE_REQUESTS: 'false' }, app.database);
    try {
      const person = new Visitor(off.baseUrl);
      const page = await person.get(`/requests/${urlToken}`);
      expect(page.status).toBe(404);
      expect(page.html).not.toContain(MESSAGE);
      expect((await person.submit('/users/sign_in', `/requests/${urlToken}`, { 'request[response]': ANSWER })).status).toBe(404);
      expect((await person.submit('/users/sign_in', `/requests/${urlToken}/access`, {})).status).toBe(404);
      // Read through the app that has them on (while both run: they share the database).
      expect(await auditKinds(urlToken)).toEqual(['creation']);
      expect((await read(urlToken)).state).toBe('open');
    } finally {
      await off.close();
    }
  });
});
