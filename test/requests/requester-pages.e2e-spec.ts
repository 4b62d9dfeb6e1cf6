import { UsersService } from '@app/auth';
import { sha256 } from '../support/helpers';
import { client, request } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';
import { Visitor } from '../support/visitor';

const MESSAGE = 'Curlew-Message-6b2e91d4';
const NOTE = 'Dunlin-Note-0c7a35e8';
const ANSWER = 'Godwit-Answer-e41f8a27';
const REQUESTER_FILE = 'Knot-RequesterFile-93d0b6c1';
const RESPONDER_FILE = 'Sanderling-ResponderFile-2f5e7a90';
const PASSWORD = 'a long password for pages';

type Json = Record<string, any>;

/**
 * The requester's pages over HTTP (the browser spec beside this one drives them as a person
 * does): the form (urlencoded and multipart), the Requests tab, a request's page with its answer
 * and files, and "Close now"; each on the API's service, so the API reads what the pages did.
 */
describe("the requester's pages (/dashboard/requests)", () => {
  let app: TestApp;
  let ownerToken: Record<string, string>;
  let otherToken: Record<string, string>;
  const api = () => client(app.baseUrl);

  /** A browser signed in as `email`. */
  const signedIn = async (email: string): Promise<Visitor> => {
    const visitor = new Visitor(app.baseUrl);
    const answer = await visitor.submit('/users/sign_in', '/users/sign_in', { email, password: PASSWORD });
    expect(answer.status).toBe(303);
    return visitor;
  };
  /** A form POSTed as multipart (as the page's form is), with the visitor's cookies and the form page's CSRF token. */
  const postMultipart = async (visitor: Visitor, action: string, fields: Record<string, string>, files: [string, string][] = [], csrf?: string) => {
    const token = csrf ?? /name="_csrf" value="([^"]+)"/.exec((await visitor.get('/dashboard/requests/new')).html)![1];
    const form = new FormData();
    form.append('_csrf', token);
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const [name, content] of files) form.append('request[files][]', new Blob([content], { type: 'text/plain' }), name);
    const cookie = [...visitor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${app.baseUrl}${action}`, { method: 'POST', body: form, redirect: 'manual', headers: { cookie } });
    return { status: response.status, html: await response.text(), location: response.headers.get('location') };
  };
  const tokenOf = (location: string | null): string => /^\/dashboard\/requests\/([\w-]+)$/.exec(location ?? '')![1];
  const auditKinds = async (urlToken: string): Promise<string[]> => (await api().get(`/api/v2/requests/${urlToken}/audit`, ownerToken)).body.logs.map((entry: Json) => entry.kind);
  const respond = (urlToken: string, response: string) => request(app.baseUrl, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { json: { request: { response } } });
  const requestRows = async () => Number((await app.query('SELECT COUNT(*) AS n FROM requests'))[0].n);
  const fileRows = async () => Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments'))[0].n);

  describe('with requests on', () => {
    let owner: Visitor;

    beforeAll(async () => {
      app = await startTestApp();
      const users = app.service(UsersService);
      ownerToken = { authorization: `Bearer ${(await users.create('requester-pages@example.com', PASSWORD)).api_token}` };
      otherToken = { authorization: `Bearer ${(await users.create('other-pages@example.com', PASSWORD)).api_token}` };
      owner = await signedIn('requester-pages@example.com');
    });
    afterAll(() => app.close({ drop: true }));

    it('sends a visitor without a session to sign in, and links the form and the tab only while requests are on', async () => {
      const anonymous = new Visitor(app.baseUrl);
      for (const path of ['/dashboard/requests', '/dashboard/requests/new', '/dashboard/requests/sometoken', '/dashboard/requests/sometoken/close']) {
        const answer = await anonymous.get(path);
        expect([path, answer.status, answer.location]).toEqual([path, 303, '/users/sign_in']);
      }
      const form = await owner.get('/dashboard/requests/new');
      expect(form.status).toBe(200);
      expect(form.html).toContain('href="/dashboard/requests/new"');
      // The 18 durations in words, 3 days chosen.
      expect(form.html.match(/<option value="\d+"/g)).toHaveLength(18);
      expect(form.html).toMatch(/<option value="0">15 minutes<\/option>/);
      expect(form.html).toMatch(/<option value="8" selected>3 days<\/option>/);
      expect((await owner.get('/dashboard/active')).html).toContain('href="/dashboard/requests"');
      // In the page's language: the durations by Intl, the words by the catalogue.
      const german = await owner.get('/dashboard/requests/new?locale=de');
      expect(german.html).toContain('Geheimnis anfragen');
      expect(german.html).toMatch(/<option value="8" selected>3 Tage<\/option>/);
    });

    it('creates a request from a urlencoded form, then shows it; the API reads the same request', async () => {
      const created = await owner.submit('/dashboard/requests/new', '/dashboard/requests/new', {
        'request[request]': MESSAGE,
        'request[close_after_duration]': '0',
        'request[name]': 'Database password',
        'request[note]': NOTE,
        'request[retrieval_step]': 'false',
        'request[include_requestor]': 'true',
        'request[passphrase]': '',
      });
      expect(created.status).toBe(303);
      const urlToken = tokenOf(created.location);
      const read = await api().get(`/api/v2/requests/${urlToken}`, ownerToken);
      expect(read.body).toMatchObject({ request: MESSAGE, name: 'Database password', note: NOTE, close_after_duration: 0, include_requestor: true, retrieval_step: false, state: 'open' });

      const page = await owner.get(`/dashboard/requests/${urlToken}`);
      expect(page.status).toBe(200);
      expect(page.html).toContain(MESSAGE);
      expect(page.html).toContain(NOTE);
      expect(page.html).toContain(`value="${app.baseUrl}/requests/${urlToken}"`);
      expect(page.html).toContain('Waiting for an answer');
      expect(page.html).not.toContain('id="answer"');
      // Nothing answered, nothing read: no response_view.
      expect(await auditKinds(urlToken)).toEqual(['creation']);
    });

    it('creates a request with the requester\'s own file from a multipart form, and lists both sides\' files with working links', async () => {
      // The form's checkbox: its hidden "false", then "true" when ticked.
      const created = await postMultipart(
        owner,
        '/dashboard/requests/new',
        { 'request[request]': MESSAGE, 'request[close_after_duration]': '8', 'request[response_file_attachments]': 'false' },
        [['brief.txt', REQUESTER_FILE]],
      );
      expect(created.status).toBe(303);
      const urlToken = tokenOf(created.location);
      expect((await api().get(`/api/v2/requests/${urlToken}`, ownerToken)).body.response_file_attachments).toBe(false);
      const form = new URLSearchParams([['request[request]', MESSAGE], ['request[response_file_attachments]', 'false'], ['request[response_file_attachments]', 'true']]);
      form.append('_csrf', /name="_csrf" value="([^"]+)"/.exec((await owner.get('/dashboard/requests/new')).html)![1]);
      const cookie = [...owner.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const checked = await fetch(`${app.baseUrl}/dashboard/requests/new`, { method: 'POST', body: form, redirect: 'manual', headers: { cookie } });
      const withFiles = tokenOf(checked.headers.get('location'));
      expect((await api().get(`/api/v2/requests/${withFiles}`, ownerToken)).body.response_file_attachments).toBe(true);

      const page = await owner.get(`/dashboard/requests/${urlToken}`);
      const link = /<a href="([^"]+)" download>brief\.txt<\/a>/.exec(page.html)![1].replace(/&#x3D;/g, '=');
      const download = await fetch(link);
      expect(download.status).toBe(200);
      expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(REQUESTER_FILE));

      // The responder's file, through the API, is listed beside it.
      const form2 = new FormData();
      form2.append('request[response]', ANSWER);
      form2.append('request[files][]', new Blob([RESPONDER_FILE], { type: 'text/plain' }), 'answer.txt');
      expect((await request(app.baseUrl, 'PATCH', `/api/v2/requests/${withFiles}/respond`, { body: form2 })).status).toBe(200);
      const answered = await owner.get(`/dashboard/requests/${withFiles}`);
      const theirs = /<a href="([^"]+)" download>answer\.txt<\/a>/.exec(answered.html)![1].replace(/&#x3D;/g, '=');
      expect(sha256(Buffer.from(await (await fetch(theirs)).arrayBuffer()))).toBe(sha256(RESPONDER_FILE));
    });

    it('shows the form again with each error beside its field, never a 500, and keeps nothing', async () => {
      const before = [await requestRows(), await fileRows()];
      const empty = await owner.submit('/dashboard/requests/new', '/dashboard/requests/new', { 'request[request]': '  ', 'request[name]': 'kept name', 'request[passphrase]': 'never shown again' });
      expect(empty.status).toBe(422);
      expect(empty.html).toContain('The request was not created.');
      expect(empty.html).toMatch(/id="message-error">Request is required\.</);
      expect(empty.html).toContain('value="kept name"');
      expect(empty.html).not.toContain('never shown again');

      const tooLong = await postMultipart(owner, '/dashboard/requests/new', { 'request[request]': 'x'.repeat(1_048_577) }, [['brief.txt', REQUESTER_FILE]]);
      expect(tooLong.status).toBe(422);
      expect(tooLong.html).toMatch(/id="message-error">[^<]+</);

      const badDuration = await owner.submit('/dashboard/requests/new', '/dashboard/requests/new', { 'request[request]': MESSAGE, 'request[close_after_duration]': '18' });
      expect(badDuration.status).toBe(422);
      expect(badDuration.html).toMatch(/id="close-after-error">Close after duration must be one of/);

      const tooManyFiles = await postMultipart(
        owner,
        '/dashboard/requests/new',
        { 'request[request]': MESSAGE },
        Array.from({ length: app.settings.files.maxUploads + 1 }, (_, n): [string, string] => [`f${n}.txt`, 'x']),
      );
      expect(tooManyFiles.status).toBe(422);
      expect(tooManyFiles.html).toMatch(/id="files-error">[^<]+</);
      expect([await requestRows(), await fileRows()]).toEqual(before);
    });

    it('refuses a form without its CSRF token, and a visitor without a session before storing a file', async () => {
      const before = [await requestRows(), await fileRows()];
      const forged = await postMultipart(owner, '/dashboard/requests/new', { 'request[request]': MESSAGE }, [['brief.txt', REQUESTER_FILE]], 'forged');
      expect(forged.status).toBe(403);
      const noToken = await fetch(`${app.baseUrl}/dashboard/requests/new`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...owner.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
        body: new URLSearchParams({ 'request[request]': MESSAGE }).toString(),
      });
      expect(noToken.status).toBe(403);
      const anonymous = await postMultipart(new Visitor(app.baseUrl), '/dashboard/requests/new', { 'request[request]': MESSAGE }, [['brief.txt', REQUESTER_FILE]], 'x');
      expect(anonymous.status).toBe(401);
      expect([await requestRows(), await fileRows()]).toEqual(before);
    });

    it("lists the caller's requests by state on the Requests tab, paged, and only theirs", async () => {
      const make = async (headers: Record<string, string>, name: string) => (await api().post('/api/v2/requests', { request: { request: MESSAGE, name } }, headers)).body.url_token as string;
      const open = await make(ownerToken, 'Tab-Open-1a');
      const ready = await make(ownerToken, 'Tab-Ready-2b');
      const closed = await make(ownerToken, 'Tab-Closed-3c');
      const others = await make(otherToken, 'Tab-Others-4d');
      expect((await respond(ready, ANSWER)).status).toBe(200);
      expect((await api().delete(`/api/v2/requests/${closed}`, ownerToken)).status).toBe(200);

      const tab = async (state: string) => (await owner.get(`/dashboard/requests${state ? `?state=${state}` : ''}`)).html;
      const names = (html: string) => ['Tab-Open-1a', 'Tab-Ready-2b', 'Tab-Closed-3c', 'Tab-Others-4d'].filter((name) => html.includes(name));
      expect(names(await tab(''))).toEqual(['Tab-Open-1a']);
      expect(names(await tab('open'))).toEqual(['Tab-Open-1a']);
      expect(names(await tab('ready'))).toEqual(['Tab-Ready-2b']);
      expect(names(await tab('closed'))).toEqual(['Tab-Closed-3c']);
      expect(await tab('ready')).toContain(`href="/dashboard/requests/${ready}"`);
      expect(await tab('open')).toContain('href="/dashboard/requests?state&#x3D;open" aria-current="page"');
      expect((await owner.get('/dashboard/requests?page=0')).status).toBe(400);
      // Past the first page: none of these.
      expect(names(await tab('open&page=2'))).toEqual([]);
      expect((await owner.get(`/dashboard/requests/${others}`)).status).toBe(404);
      expect(await tab('open')).toContain(`href="/dashboard/requests/${open}"`);
    });

    it('pages the tab 50 at a time', async () => {
      for (let n = 0; n < 51; n++) await api().post('/api/v2/requests', { request: { request: MESSAGE, name: `Paged-${n}` } }, otherToken);
      const other = await signedIn('other-pages@example.com');
      const first = await other.get('/dashboard/requests?state=open');
      expect(first.html.match(/Paged-\d+/g)).toHaveLength(50);
      expect(first.html).toContain('href="/dashboard/requests?state&#x3D;open&amp;page&#x3D;2" rel="next"');
      const second = await other.get('/dashboard/requests?state=open&page=2');
      // The oldest, and the one made by the test before.
      expect(second.html.match(/Paged-\d+|Tab-Others-4d/g)).toEqual(['Paged-0', 'Tab-Others-4d']);
      expect(second.html).toContain('rel="prev"');
    });

    it("shows the answer after an API respond, audits each showing as response_view, and is a 404 to anyone else", async () => {
      const urlToken = (await api().post('/api/v2/requests', { request: { request: MESSAGE } }, ownerToken)).body.url_token as string;
      expect((await respond(urlToken, ANSWER)).status).toBe(200);
      const page = await owner.get(`/dashboard/requests/${urlToken}`);
      expect(page.status).toBe(200);
      expect(page.html).toMatch(new RegExp(`<textarea id="answer"[^>]*data-blur[^>]*>${ANSWER}</textarea>`));
      expect(page.html).toContain('Answered');
      await owner.get(`/dashboard/requests/${urlToken}`);
      expect(await auditKinds(urlToken)).toEqual(['creation', 'response', 'response_view', 'response_view']);
      // The audit log on the page names the reads.
      expect((await owner.get(`/dashboard/requests/${urlToken}`)).html).toContain('Answer read by you');

      // HEAD reads nothing; another person and a stranger see the neutral 404, never the answer.
      const head = await fetch(`${app.baseUrl}/dashboard/requests/${urlToken}`, { method: 'HEAD', headers: { cookie: [...owner.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } });
      expect(head.status).toBe(405);
      const other = await signedIn('other-pages@example.com');
      for (const path of [`/dashboard/requests/${urlToken}`, `/dashboard/requests/${urlToken}/close`, '/dashboard/requests/nosuchtoken']) {
        const answer = await other.get(path);
        expect([path, answer.status]).toEqual([path, 404]);
        expect(answer.html).not.toContain(ANSWER);
        expect(answer.html).not.toContain(MESSAGE);
      }
      const refused = await other.submit(`/dashboard/requests/new`, `/dashboard/requests/${urlToken}/close`, {});
      expect(refused.status).toBe(404);
      expect(await auditKinds(urlToken)).toEqual(['creation', 'response', 'response_view', 'response_view', 'response_view']);
      expect((await api().get(`/api/v2/requests/${urlToken}`, ownerToken)).body.state).toBe('ready');
    });

    it('serves its pages with the pages\' CSP and no-store', async () => {
      const urlToken = (await api().post('/api/v2/requests', { request: { request: MESSAGE } }, ownerToken)).body.url_token as string;
      expect((await respond(urlToken, ANSWER)).status).toBe(200);
      for (const path of ['/dashboard/requests', '/dashboard/requests/new', `/dashboard/requests/${urlToken}`, `/dashboard/requests/${urlToken}/close`]) {
        const answer = await fetch(`${app.baseUrl}${path}`, { headers: { cookie: [...owner.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } });
        expect(answer.headers.get('cache-control')).toBe('no-store');
        expect(answer.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
      }
    });

    it('closes a request with "Close now": the answer and files destroyed, the API reads it closed', async () => {
      const form = new FormData();
      form.append('request[request]', MESSAGE);
      form.append('request[response_file_attachments]', 'true');
      const urlToken = (await request(app.baseUrl, 'POST', '/api/v2/requests', { body: form, headers: ownerToken })).body.url_token as string;
      const answer = new FormData();
      answer.append('request[response]', ANSWER);
      answer.append('request[files][]', new Blob([RESPONDER_FILE], { type: 'text/plain' }), 'answer.txt');
      expect((await request(app.baseUrl, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { body: answer })).status).toBe(200);

      const confirm = await owner.get(`/dashboard/requests/${urlToken}/close`);
      expect(confirm.status).toBe(200);
      expect(confirm.html).toContain(`action="/dashboard/requests/${urlToken}/close"`);
      expect(confirm.html).not.toContain(ANSWER);
      const closed = await owner.submit(`/dashboard/requests/${urlToken}/close`, `/dashboard/requests/${urlToken}/close`, {});
      expect([closed.status, closed.location]).toEqual([303, `/dashboard/requests/${urlToken}`]);

      const read = await api().get(`/api/v2/requests/${urlToken}`, ownerToken);
      expect(read.body).toMatchObject({ state: 'closed', response: null, files: [] });
      expect(Number((await app.query('SELECT COUNT(*) AS n FROM file_attachments f JOIN requests r ON r.id = f.request_id WHERE r.url_token = ?', [urlToken]))[0].n)).toBe(0);
      const page = await owner.get(`/dashboard/requests/${urlToken}`);
      expect(page.html).toContain('This request is closed');
      expect(page.html).not.toContain(ANSWER);
      expect(page.html).not.toContain('/close"');
      expect(await auditKinds(urlToken)).toEqual(['creation', 'response', 'expire']);
    });
  });

  describe('with requests off', () => {
    beforeAll(async () => {
      app = await startTestApp({ PWP__ENABLE_REQUESTS: 'false' });
      await app.service(UsersService).create('off-pages@example.com', PASSWORD);
    });
    afterAll(() => app.close({ drop: true }));

    it('answers the neutral 404 on every page, and shows no link to them', async () => {
      const visitor = await signedIn('off-pages@example.com');
      for (const path of ['/dashboard/requests', '/dashboard/requests/new', '/dashboard/requests/sometoken', '/dashboard/requests/sometoken/close']) {
        expect([path, (await visitor.get(path)).status]).toEqual([path, 404]);
      }
      const post = await visitor.submit('/dashboard/active', '/dashboard/requests/new', { 'request[request]': MESSAGE });
      expect(post.status).toBe(404);
      const dashboard = await visitor.get('/dashboard/active');
      expect(dashboard.html).not.toContain('/dashboard/requests');
      expect(await requestRows()).toBe(0);
    });
  });
});
