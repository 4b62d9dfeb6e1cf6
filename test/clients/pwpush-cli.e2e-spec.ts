import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotificationWorker } from '@app/notifications';
import { rawRequest, type RawAnswer } from '../support/http';
import { type Mailpit, MAILPIT_SENDER, startMailpit } from '../support/mailpit';
import { startMailingTestApp, startTestApp, TestApp } from '../support/test-app';

/**
 * The reference's official command-line client, pwpush-cli 0.16 (Python, `requests`), replayed
 * byte for byte: the headers it sends (its User-Agent, the Bearer header together with the legacy
 * X-User-Email/X-User-Token pair), JSON bodies as Python's json.dumps writes them, with the values
 * its config file gives (strings), `expire_after_duration` for the days it knows, and what it reads
 * from each answer (pwpush/api/client.py, endpoints.py, capabilities.py, commands/*.py); then its
 * legacy profile (API v1), which it takes on a server whose GET /api/v2/version is not a 200.
 */

const USER_AGENT = 'pwpush-cli/0.16.0';
const EMAIL = 'cli-user@example.com';

/** pwpush-cli's days → expire_after_duration table (endpoints.py, _DURATION_BY_DAYS). */
const DURATION_BY_DAYS: Record<number, number> = { 1: 6, 2: 7, 3: 8, 4: 9, 5: 10, 6: 11, 7: 12, 14: 13, 21: 14, 30: 15, 60: 16, 90: 17 };

type CliAnswer = RawAnswer;

/** Python's json.dumps with its default separators (", " and ": "), as `requests` sends json=. */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, child]) => `${JSON.stringify(key)}: ${pythonJson(child)}`)
      .join(', ')}}`;
  }
  // json.dumps escapes every non-ASCII character.
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface Credentials {
  token?: string;
  email?: string;
}

/** client.py's build_auth_headers: the Bearer header, plus the legacy pair when an email is configured. */
function buildAuthHeaders(credentials: Credentials): Record<string, string> {
  if (!credentials.token) return {};
  const headers: Record<string, string> = { Authorization: `Bearer ${credentials.token}` };
  if (credentials.email) Object.assign(headers, { 'X-User-Email': credentials.email, 'X-User-Token': credentials.token });
  return headers;
}

/** A body `requests` encodes with files= (and data=): multipart/form-data. */
interface RequestsMultipart {
  contentType: string;
  body: Buffer;
}

interface CliRequestOptions {
  json?: unknown;
  multipart?: RequestsMultipart;
  headers?: Record<string, string>;
  /** Whether the answer is this service's, to be checked against openapi.json (a proxy's own answer is not). */
  fromService?: boolean;
}

/** One request as `requests` sends it: its default headers, then the CLI's, then the body's. */
async function cliRequest(baseUrl: string, method: string, path: string, options: CliRequestOptions = {}): Promise<CliAnswer> {
  const body =
    options.json !== undefined ? { contentType: 'application/json', body: Buffer.from(pythonJson(options.json)) } : options.multipart;
  const headers: Record<string, string> = {
    'User-Agent': USER_AGENT,
    'Accept-Encoding': 'gzip, deflate',
    Accept: '*/*',
    Connection: 'keep-alive',
    ...options.headers,
    ...(body
      ? { 'Content-Length': String(body.body.length), 'Content-Type': body.contentType }
      : method === 'DELETE'
        ? { 'Content-Length': '0' }
        : {}),
  };
  return rawRequest(new URL(path, baseUrl), { method, headers }, body?.body, options.fromService ?? true);
}

/** What the CLI prints for an answer that is not the one it wanted (error_json): body["error"], else the text. */
const cliError = (answer: CliAnswer): string => (typeof answer.body?.error === 'string' ? answer.body.error : answer.text);

/**
 * Each route, called as the CLI calls it with a wrong token (a POST with `create` as its body),
 * answers 401 with the error the CLI prints.
 */
async function expectWrongTokenRefused(baseUrl: string, routes: [method: string, path: string][], create: unknown): Promise<void> {
  const wrong = buildAuthHeaders({ token: 'pwp_wrong', email: EMAIL });
  for (const [method, path] of routes) {
    const answer = await cliRequest(baseUrl, method, path, { headers: wrong, json: method === 'POST' ? create : undefined });
    expect([path, answer.status, cliError(answer)]).toEqual([path, 401, 'Invalid or revoked API token.']);
  }
}

/** capabilities.py's detect_api_profile: v2 when GET /api/v2/version answers 200 (only the Bearer header is sent). */
async function detectApiProfile(baseUrl: string, token: string, fromService = true): Promise<'v2' | 'legacy'> {
  const answer = await cliRequest(baseUrl, 'GET', '/api/v2/version', {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    fromService,
  });
  return answer.status === 200 ? 'v2' : 'legacy';
}

describe('the official CLI, pwpush-cli 0.16, against this service', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    // No PWP__ENABLE_* settings: the kinds have their defaults.
    app = await startTestApp({ PWP__ENABLE_URL_PUSHES: undefined, PWP__ENABLE_QR_PUSHES: undefined, PWP__ENABLE_FILE_PUSHES: undefined });
    token = await app.createUser(EMAIL);
  });
  afterAll(() => app.close({ drop: true }));

  const authHeaders = (credentials: Credentials = { token, email: EMAIL }) => buildAuthHeaders(credentials);

  const send = (method: string, path: string, options: CliRequestOptions = {}) => cliRequest(app.baseUrl, method, path, options);
  const detectProfile = (withToken = token) => detectApiProfile(app.baseUrl, withToken);

  /**
   * push.py's push_cmd + endpoints.py's adapt_text_payload_for_profile: the options it was given
   * (or the config file's strings), days turned into expire_after_duration when the table has them,
   * then GET .../preview and print body["url"].
   */
  async function pushText(options: {
    secret: string;
    kind?: 'text' | 'url' | 'qr';
    days?: number | string;
    views?: number | string;
    note?: string;
    name?: string;
    deletable?: boolean | string;
    retrievalStep?: boolean | string;
    passphrase?: string;
    credentials?: { token?: string; email?: string };
  }): Promise<{ create: CliAnswer; preview: CliAnswer }> {
    const push: Record<string, unknown> = { payload: options.secret, kind: options.kind ?? 'text' };
    if (options.views !== undefined) push.expire_after_views = options.views;
    if (options.note !== undefined) push.note = options.note;
    if (options.name !== undefined) push.name = options.name;
    if (options.deletable !== undefined) push.deletable_by_viewer = options.deletable;
    if (options.retrievalStep !== undefined) push.retrieval_step = options.retrievalStep;
    if (options.passphrase !== undefined) push.passphrase = options.passphrase;
    if (options.days !== undefined) {
      const days = Number(options.days);
      if (DURATION_BY_DAYS[days] !== undefined) push.expire_after_duration = DURATION_BY_DAYS[days];
      else push.expire_after_days = days;
    }
    const create = await send('POST', '/api/v2/pushes', { json: { push }, headers: authHeaders(options.credentials) });
    expect(create.status).toBe(201);
    const preview = await send('GET', `/api/v2/pushes/${create.body.url_token}/preview`, { headers: authHeaders(options.credentials) });
    return { create, preview };
  }

  it('detects API v2 from the version endpoint, with or without a token, and logs in on the active list', async () => {
    expect(await detectProfile()).toBe('v2');
    expect(await detectProfile('')).toBe('v2');
    // auth.py's login_cmd: the first of validation_paths("v2") that is not a 404 must answer 200.
    const login = await send('GET', '/api/v2/pushes/active', { headers: authHeaders() });
    expect(login.status).toBe(200);
    expect(Array.isArray(login.body)).toBe(true);
  });

  it('refuses a wrong token with 401 and an error the CLI prints, on login and on every command', async () => {
    const routes: [string, string][] = [
      ['GET', '/api/v2/pushes/active'],
      ['GET', '/api/v2/pushes/expired'],
      ['POST', '/api/v2/pushes'],
    ];
    await expectWrongTokenRefused(app.baseUrl, routes, { push: { payload: 'x', kind: 'text' } });
  });

  it('pushes text with days, views, passphrase, note, name, deletable and retrieval step; prints the preview url', async () => {
    const { create, preview } = await pushText({
      secret: 'correct horse battery staple',
      days: 2,
      views: 3,
      note: 'ticket #42',
      name: 'db password',
      deletable: true,
      retrievalStep: true,
      passphrase: 'open sesame',
    });
    expect(create.body).toMatchObject({
      kind: 'text',
      expire_after_days: 2,
      expire_after_views: 3,
      note: 'ticket #42',
      name: 'db password',
      deletable_by_viewer: true,
      retrieval_step: true,
      passphrase_protected: true,
    });
    expect(preview).toMatchObject({ status: 200, body: { url: `${app.baseUrl}/p/${create.body.url_token}/r` } });
    // The recipient needs the passphrase; the owner's pushes are listed.
    const retrieved = await send('GET', `/api/v2/pushes/${create.body.url_token}?passphrase=open%20sesame`);
    expect(retrieved.body).toMatchObject({ payload: 'correct horse battery staple', views_remaining: 2 });
  });

  it('pushes with the values a config file gives (strings), and days the duration table lacks as expire_after_days', async () => {
    const { create } = await pushText({ secret: 's', days: '10', views: '5', deletable: 'False', retrievalStep: 'false' });
    expect(create.body).toMatchObject({ expire_after_days: 10, expire_after_views: 5, deletable_by_viewer: false, retrieval_step: false });
    const month = await pushText({ secret: 's', days: '30' });
    expect(month.create.body.expire_after_days).toBe(30);
  });

  it('pushes anonymously when no token is configured', async () => {
    const { create, preview } = await pushText({ secret: 'anonymous secret', days: 1, credentials: {} });
    expect(create.body).toMatchObject({ expire_after_days: 1, name: '', note: '' });
    expect(preview.body.url).toBe(`${app.baseUrl}/p/${create.body.url_token}/r`);
  });

  it('pushes a URL and a QR code (kinds on by default)', async () => {
    const url = await pushText({ secret: 'https://example.com/reset?t=1', kind: 'url', retrievalStep: false });
    expect(url.create.body).toMatchObject({ kind: 'url', deletable_by_viewer: null });
    expect(url.preview.body.url).toBe(`${app.baseUrl}/p/${url.create.body.url_token}`);
    const qr = await pushText({ secret: 'WIFI:S:guest;T:WPA;P:hunter2;;', kind: 'qr', days: 7 });
    expect(qr.create.body).toMatchObject({ kind: 'qr', expire_after_days: 7 });
  });

  it('lists active and expired pushes with every key the table prints', async () => {
    const { create } = await pushText({ secret: 'listed', views: 2, days: 3 });
    const active = await send('GET', '/api/v2/pushes/active', { headers: authHeaders() });
    expect(active.status).toBe(200);
    const row = (active.body as Record<string, any>[]).find((push) => push.url_token === create.body.url_token);
    // manage.py's list_cmd prints f'{push["note"]}': "" rather than "None" when there is no note.
    expect(row).toMatchObject({
      note: '',
      expire_after_views: 2,
      views_remaining: 2,
      expire_after_days: 3,
      days_remaining: 3,
      retrieval_step: true,
    });
    expect(Number.isNaN(Date.parse(row!.created_at))).toBe(false);
    expect(typeof row!.deletable_by_viewer).toBe('boolean');

    const expire = await send('DELETE', `/api/v2/pushes/${create.body.url_token}`, { headers: authHeaders() });
    expect(expire.status).toBe(200);
    const expired = await send('GET', '/api/v2/pushes/expired', { headers: authHeaders() });
    expect((expired.body as { url_token: string }[]).map((push) => push.url_token)).toContain(create.body.url_token);
  });

  it('expires a push (DELETE) and prints the answer as JSON', async () => {
    const { create } = await pushText({ secret: 'to expire' });
    const expire = await send('DELETE', `/api/v2/pushes/${create.body.url_token}`, { headers: authHeaders() });
    expect(expire.status).toBe(200);
    expect(expire.body).toMatchObject({ url_token: create.body.url_token, expired: true, deleted: true });
    const again = await send('GET', `/api/v2/pushes/${create.body.url_token}`);
    expect(again.body).toMatchObject({ expired: true, payload: null });
  });

  it('shows the audit log with the keys normalize_audit_events reads', async () => {
    const { create } = await pushText({ secret: 'audited', views: 5 });
    await send('GET', `/api/v2/pushes/${create.body.url_token}`);
    const audit = await send('GET', `/api/v2/pushes/${create.body.url_token}/audit`, { headers: authHeaders() });
    expect(audit.status).toBe(200);
    const logs = audit.body.logs as Record<string, string>[];
    expect(logs.map((entry) => entry.kind)).toEqual(['creation', 'view']);
    for (const entry of logs) {
      expect(entry).toEqual(
        expect.objectContaining({ ip: expect.any(String), user_agent: USER_AGENT, referrer: '', kind: expect.any(String) }),
      );
      expect(Number.isNaN(Date.parse(entry.created_at))).toBe(false);
    }
  });

  it('gets errors it can print: 403 for another user, 404 for an unknown token, 401 without a token', async () => {
    const other = await app.createUser('other@example.com');
    const { create } = await pushText({ secret: 'not yours', deletable: false });
    const otherAuth = authHeaders({ token: other, email: 'other@example.com' });
    const audit = await send('GET', `/api/v2/pushes/${create.body.url_token}/audit`, { headers: otherAuth });
    expect([audit.status, cliError(audit)]).toEqual([403, "That push doesn't belong to you."]);
    const expire = await send('DELETE', `/api/v2/pushes/${create.body.url_token}`, { headers: otherAuth });
    expect([expire.status, cliError(expire)]).toEqual([403, 'That push is not deletable by viewers.']);
    const unknown = await send('DELETE', '/api/v2/pushes/doesnotexist0000000000000', { headers: authHeaders() });
    expect([unknown.status, cliError(unknown)]).toEqual([404, 'not-found']);
    const anonymous = await send('GET', '/api/v2/pushes/active');
    expect(anonymous.status).toBe(401);
    expect(cliError(anonymous)).toMatch(/^Authentication required/);
  });
});

/** As `dateutil.parser.isoparse` reads created_at (audit_cmd, list_cmd): ISO-8601 with a zone. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Python's str() of a form value: `requests` sends True/False for booleans. */
const pythonStr = (value: unknown): string => (typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value));

/** client.py's _flatten_form_data (L99-111): `{"file_push": {"kind": "file"}}` → `file_push[kind]=file`, in insertion order. */
const flattenFormData = (data: Record<string, Record<string, unknown>>): [string, string][] =>
  Object.entries(data).flatMap(([wrapper, fields]) =>
    Object.entries(fields).map(([name, value]): [string, string] => [`${wrapper}[${name}]`, pythonStr(value)]),
  );

/**
 * urllib3's encode_multipart_formdata, as `requests` calls it for data= and files=: an unquoted
 * 32-hex boundary, the data fields first, then the file with its basename and no Content-Type of
 * its own (files= was given an open file, not a tuple with a type).
 */
function requestsMultipart(fields: [string, string][], file: { field: string; filename: string; bytes: Buffer }): RequestsMultipart {
  const boundary = randomBytes(16).toString('hex');
  const part = (disposition: string, data: Buffer) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n`),
    data,
    Buffer.from('\r\n'),
  ];
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([
      ...fields.flatMap(([name, value]) => part(`name="${name}"`, Buffer.from(value))),
      ...part(`name="${file.field}"; filename="${file.filename}"`, file.bytes),
      Buffer.from(`--${boundary}--\r\n`),
    ]),
  };
}

/**
 * A server without API v2, as the CLI sees one: a reverse proxy in front of the app that answers
 * `GET /api/v2/version` with 404 and forwards every other request and answer byte for byte (the
 * headers as sent, Host included, so the app's URLs name the proxy).
 */
async function startWithoutV2(target: string): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    if (incoming.method === 'GET' && incoming.url?.split('?')[0] === '/api/v2/version') {
      incoming.resume();
      outgoing.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8' }).end('<h1>Not Found</h1>');
      return;
    }
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.rawHeaders },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The CLI's legacy profile (API v1), which it takes for any server whose `GET /api/v2/version` is
 * not a 200 (capabilities.py L25-51): every call below goes through a proxy that hides that
 * endpoint, exactly as the legacy profile sends it (endpoints.py L23-63: /p.json, /f.json,
 * /p/:t/preview.json, /f/:t/preview.json, /p/:t.json, /p/:t/audit.json, /p/active.json).
 * pwpush-cli @ ea820ab (0.16.6).
 */
describe("the official CLI's legacy profile (API v1), when the version endpoint is absent", () => {
  let app: TestApp;
  let server: { baseUrl: string; close(): Promise<void> };
  let token: string;

  beforeAll(async () => {
    app = await startTestApp({ PWP__ENABLE_URL_PUSHES: undefined, PWP__ENABLE_QR_PUSHES: undefined, PWP__ENABLE_FILE_PUSHES: undefined });
    token = await app.createUser(EMAIL);
    server = await startWithoutV2(app.baseUrl);
  });
  afterAll(async () => {
    await server.close();
    await app.close({ drop: true });
  });

  const authHeaders = (credentials: Credentials = { token, email: EMAIL }) => buildAuthHeaders(credentials);
  const send = (method: string, path: string, options: CliRequestOptions = {}) => cliRequest(server.baseUrl, method, path, options);

  interface PushOptions {
    secret: string;
    kind?: 'text' | 'url' | 'qr';
    days?: number | string;
    views?: number | string;
    note?: string;
    name?: string;
    deletable?: boolean | string;
    retrievalStep?: boolean | string;
    passphrase?: string;
    /** The config file's account_id, which make_request adds beside the wrapper. */
    accountId?: string;
    credentials?: Credentials;
  }

  /**
   * push.py's push_cmd on the legacy profile: `{"password": {...}}` unchanged (in push_cmd's order,
   * L186-318; account_id beside it, __main__.py L361-370), `POST /p.json` for text, url and qr
   * alike, nothing but 201 accepted, then `GET /p/:url_token/preview.json` and print body["url"]
   * (L372-388).
   */
  async function pushText(options: PushOptions): Promise<{ create: CliAnswer; url: string }> {
    const password: Record<string, unknown> = { kind: options.kind ?? 'text', payload: options.secret };
    if (options.days !== undefined) password.expire_after_days = options.days;
    if (options.note !== undefined) password.note = options.note;
    if (options.name !== undefined) password.name = options.name;
    if (options.views !== undefined) password.expire_after_views = options.views;
    if (options.deletable !== undefined) password.deletable_by_viewer = options.deletable;
    if (options.retrievalStep !== undefined) password.retrieval_step = options.retrievalStep;
    if (options.passphrase !== undefined) password.passphrase = options.passphrase;
    const json = options.accountId === undefined ? { password } : { password, account_id: options.accountId };
    const create = await send('POST', '/p.json', { json, headers: authHeaders(options.credentials) });
    expect(create.status).toBe(201);
    const preview = await send('GET', `/p/${create.body.url_token}/preview.json`, { headers: authHeaders(options.credentials) });
    expect(preview.status).toBe(200);
    return { create, url: preview.body.url as string };
  }

  /** list_cmd's table (manage.py L289-302): every key it reads, with the arithmetic it does on them. */
  function expectListed(rows: Record<string, unknown>[], urlToken: string): Record<string, unknown> {
    const row = rows.find((push) => push.url_token === urlToken);
    expect(row).toBeDefined();
    expect(row).toEqual(
      expect.objectContaining({
        note: expect.any(String),
        expire_after_views: expect.any(Number),
        views_remaining: expect.any(Number),
        expire_after_days: expect.any(Number),
        days_remaining: expect.any(Number),
        retrieval_step: expect.any(Boolean),
        created_at: expect.stringMatching(ISO_8601),
      }),
    );
    expect(row).toHaveProperty('deletable_by_viewer');
    return row!;
  }

  it('takes the legacy profile when GET /api/v2/version is not a 200, and logs in on /p/active.json', async () => {
    expect(await detectApiProfile(app.baseUrl, token)).toBe('v2');
    expect(await detectApiProfile(server.baseUrl, token, false)).toBe('legacy');
    expect(await detectApiProfile(server.baseUrl, '', false)).toBe('legacy');
    // auth.py's login_cmd: validation_paths("legacy") starts with /p/active.json; the first answer that is not a 404 decides.
    const login = await send('GET', '/p/active.json', { headers: authHeaders() });
    expect(login.status).toBe(200);
    expect(Array.isArray(login.body)).toBe(true);
  });

  it('refuses a wrong token with 401 and an error the CLI prints', async () => {
    const routes: [string, string][] = [
      ['GET', '/p/active.json'],
      ['GET', '/p/expired.json'],
      ['POST', '/p.json'],
    ];
    await expectWrongTokenRefused(server.baseUrl, routes, { password: { kind: 'text', payload: 'x' } });
  });

  it('pushes text with every flag to /p.json (typed JSON) and prints the url of /p/:url_token/preview.json', async () => {
    const { create, url } = await pushText({
      secret: 'correct horse battery staple',
      days: 2,
      note: 'ticket #42',
      name: 'db password',
      views: 3,
      deletable: true,
      retrievalStep: true,
      passphrase: 'open sesame',
    });
    const urlToken = create.body.url_token as string;
    expect(url).toBe(`${server.baseUrl}/p/${urlToken}/r`);
    expect(create.body).toMatchObject({
      kind: 'text',
      expire_after_days: 2,
      expire_after_views: 3,
      note: 'ticket #42',
      name: 'db password',
      deletable_by_viewer: true,
      retrieval_step: true,
      passphrase_protected: true,
    });
    const retrieved = await send('GET', `/p/${urlToken}.json?passphrase=open%20sesame`);
    expect(retrieved.body).toMatchObject({ payload: 'correct horse battery staple', views_remaining: 2 });
  });

  it('pushes with the config file\'s strings ("10", "False", "True") and its account_id beside the wrapper', async () => {
    const { create } = await pushText({ secret: 's', days: '10', views: '4', deletable: 'False', retrievalStep: 'True', accountId: '3' });
    expect(create.body).toMatchObject({ expire_after_days: 10, expire_after_views: 4, deletable_by_viewer: false, retrieval_step: true });
  });

  it('pushes a URL and a QR code to /p.json, and anonymously when no token is configured', async () => {
    const url = await pushText({ secret: 'https://example.com/reset?t=1', kind: 'url', retrievalStep: false });
    expect(url.create.body).toMatchObject({ kind: 'url', deletable_by_viewer: null });
    expect(url.url).toBe(`${server.baseUrl}/p/${url.create.body.url_token}`);
    const qr = await pushText({ secret: 'WIFI:S:guest;T:WPA;P:hunter2;;', kind: 'qr', days: 7 });
    expect(qr.create.body).toMatchObject({ kind: 'qr', expire_after_days: 7 });
    const anonymous = await pushText({ secret: 'anonymous secret', days: 1, credentials: {} });
    expect(anonymous.create.body).toMatchObject({ kind: 'text', expire_after_days: 1, name: '', note: '' });
  });

  it('pushes a file to /f.json as requests encodes it, prints /f/:url_token/preview.json; the recipient downloads it byte for byte; expire removes it', async () => {
    const bytes = randomBytes(70_000);
    // push_file_cmd's data (push.py L462-499: payload and kind first, then the options in its order), flags typed as Python gives them.
    const data = {
      file_push: {
        payload: '',
        kind: 'file',
        expire_after_days: 3,
        expire_after_views: 2,
        deletable_by_viewer: false,
        retrieval_step: false,
        note: 'quarterly',
        name: 'backup',
      },
    };
    const multipart = requestsMultipart(flattenFormData(data), { field: 'file_push[files][]', filename: 'backup.txt', bytes });
    const create = await send('POST', '/f.json', { multipart, headers: authHeaders() });
    expect(create.status).toBe(201);
    expect(create.body).toMatchObject({
      kind: 'file',
      expire_after_days: 3,
      expire_after_views: 2,
      deletable_by_viewer: false,
      retrieval_step: false,
      note: 'quarterly',
      name: 'backup',
    });
    const urlToken = create.body.url_token as string;
    const preview = await send('GET', `/f/${urlToken}/preview.json`, { headers: authHeaders() });
    expect(preview).toMatchObject({ status: 200, body: { url: `${server.baseUrl}/p/${urlToken}` } });

    // The recipient, without an account.
    const retrieved = await send('GET', `/f/${urlToken}.json`);
    expect(retrieved.body.files).toEqual([expect.objectContaining({ filename: 'backup.txt', size: bytes.length })]);
    const fileUrl = retrieved.body.files[0].url as string;
    expect(fileUrl.startsWith(`${server.baseUrl}/`)).toBe(true);
    const download = await fetch(fileUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

    // manage.py's expire_cmd (L119-143) uses /p/:url_token.json for every kind and wants a 200.
    const expire = await send('DELETE', `/p/${urlToken}.json`, { headers: authHeaders() });
    expect(expire).toMatchObject({ status: 200, body: { url_token: urlToken, expired: true, deleted: true } });
    expect((await fetch(fileUrl)).status).toBe(404);
  });

  it('expires a push with DELETE /p/:url_token.json (200, printed); a token it does not know is an error (404)', async () => {
    const { create } = await pushText({ secret: 'to expire' });
    const urlToken = create.body.url_token as string;
    const expire = await send('DELETE', `/p/${urlToken}.json`, { headers: authHeaders() });
    expect(expire).toMatchObject({ status: 200, body: { url_token: urlToken, expired: true, deleted: true } });
    expect((await send('GET', `/p/${urlToken}.json`)).body).toMatchObject({ expired: true, payload: null });
    const unknown = await send('DELETE', '/p/doesnotexist0000000000000.json', { headers: authHeaders() });
    expect([unknown.status, cliError(unknown)]).toEqual([404, 'not-found']);
  });

  it('shows the audit log from /p/:url_token/audit.json with the views[] fields normalize_audit_events reads', async () => {
    const { create } = await pushText({ secret: 'audited', views: 5 });
    const urlToken = create.body.url_token as string;
    expect((await send('GET', `/p/${urlToken}.json`)).body.payload).toBe('audited');
    const audit = await send('GET', `/p/${urlToken}/audit.json`, { headers: authHeaders() });
    expect(audit.status).toBe(200);
    // "views" in the body is what makes normalize_audit_events (endpoints.py L154-179) read it as v1.
    const views = audit.body.views as Record<string, unknown>[];
    expect(views.map((event) => event.kind)).toEqual(['creation', 'view']);
    for (const event of views) {
      expect(event).toEqual(
        expect.objectContaining({
          ip: expect.any(String),
          user_agent: USER_AGENT,
          referrer: expect.any(String),
          created_at: expect.stringMatching(ISO_8601),
        }),
      );
    }
  });

  it('lists active and expired pushes from /p/active.json and /p/expired.json with every key list_cmd reads', async () => {
    const { create } = await pushText({ secret: 'listed', views: 2, days: 3 });
    const urlToken = create.body.url_token as string;
    const active = await send('GET', '/p/active.json', { headers: authHeaders() });
    expect(active.status).toBe(200);
    const row = expectListed(active.body as Record<string, unknown>[], urlToken);
    expect(row).toMatchObject({
      note: '',
      expire_after_views: 2,
      views_remaining: 2,
      expire_after_days: 3,
      days_remaining: 3,
      retrieval_step: true,
    });

    expect((await send('DELETE', `/p/${urlToken}.json`, { headers: authHeaders() })).status).toBe(200);
    const expired = await send('GET', '/p/expired.json', { headers: authHeaders() });
    expect(expired.status).toBe(200);
    expect(expectListed(expired.body as Record<string, unknown>[], urlToken)).toMatchObject({
      expire_after_views: 2,
      expire_after_days: 3,
    });
  });
});

// Its own app (passport's strategies are process-wide): rate limits answer 429, which the CLI
// prints rather than retries (it only retries a 403 that looks like a rate limit).
describe('the official CLI over its rate limit', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ PWP__THROTTLING__SECOND: '0', PWP__THROTTLING__MINUTE: '3' });
  });
  afterAll(() => app.close({ drop: true }));

  it('answers 429 with Retry-After and an error, never a 403 it would retry', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await fetch(`${app.baseUrl}/api/v2/pushes`, {
        method: 'POST',
        headers: { 'User-Agent': USER_AGENT, 'Content-Type': 'application/json' },
        body: pythonJson({ push: { payload: 'x', kind: 'text' } }),
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last!.json()).toEqual({ error: 'Rate limit exceeded. Try again later.' });
  });
});

interface VersionAnswer {
  api_version?: string;
  features?: { pushes?: { email_auto_dispatch?: unknown } };
}

/** capabilities.py's email_notifications_enabled: api_version 2.1 or later and a truthy features.pushes.email_auto_dispatch. */
function emailNotificationsEnabled(version: VersionAnswer): boolean {
  const [major = 0, minor = 0] = (version.api_version ?? '').split('.').map(Number);
  if (!(major > 2 || (major === 2 && minor >= 1))) return false;
  return Boolean(version.features?.pushes?.email_auto_dispatch);
}

/**
 * `pwpush push --secret <secret> --notify a@example.com` with a token configured
 * (`pwpush config set token ...`, no email), pwpush-cli @ ea820ab (0.16.6), push.py's push_cmd:
 * `--notify` needs the token (L303-310), then detect_api_capabilities asks the version endpoint
 * (capabilities.py L54-99: GET /api/v2/version, the Bearer header alone) and push_cmd sends
 * `notify_emails_to` only when email_notifications_enabled says so (L312-325; otherwise it warns
 * "Options ignored" and pushes without it); adapt_text_payload_for_profile puts it after payload
 * and kind (endpoints.py L66-104); then the preview's url is printed. The app sends mail to a
 * Mailpit started here, and the test drains the outbox with the worker's round. Checked once
 * against the CLI's own push_cmd (run from its source through a logging proxy to the built
 * server, its worker on): the same four requests, the same POST body, byte for byte, and the mail.
 */
describe("the official CLI's push --notify, on an instance with mail", () => {
  const SECRET = 'notify-me: hunter2 correct horse';
  const RECIPIENT = 'a@example.com';
  let mailpit: Mailpit;
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    mailpit = await startMailpit();
    app = await startMailingTestApp(mailpit.env);
    token = await app.createUser(EMAIL);
  });
  afterAll(async () => {
    await app?.close({ drop: true });
    await mailpit?.stop();
  });

  const send = (method: string, path: string, options: CliRequestOptions = {}) => cliRequest(app.baseUrl, method, path, options);

  it('mails the link to the recipient, never the secret, and the audit log reports it sent', async () => {
    expect(await detectApiProfile(app.baseUrl, token)).toBe('v2');
    // requests.get with the Bearer header alone: requests' own User-Agent, not the CLI's.
    const capabilities = await send('GET', '/api/v2/version', { headers: { 'User-Agent': 'python-requests/2.34.2', Authorization: `Bearer ${token}` } });
    expect(emailNotificationsEnabled(capabilities.body as VersionAnswer)).toBe(true);

    const headers = buildAuthHeaders({ token });
    const create = await send('POST', '/api/v2/pushes', { json: { push: { payload: SECRET, kind: 'text', notify_emails_to: RECIPIENT } }, headers });
    expect(create.status).toBe(201);
    expect(create.body).toMatchObject({ notify_emails_to: RECIPIENT });
    const preview = await send('GET', `/api/v2/pushes/${create.body.url_token}/preview`, { headers });
    expect(preview.status).toBe(200);
    const printedUrl = preview.body.url as string;
    expect(printedUrl).toBe(create.body.html_url);
    expect(printedUrl.startsWith(`${app.baseUrl}/p/${create.body.url_token}`)).toBe(true);

    // Nothing leaves in the request: the worker sends it.
    expect(await mailpit.messages()).toEqual([]);
    await app.service(NotificationWorker).round();
    const [summary] = await mailpit.waitForMessages(1);
    const mail = await mailpit.message(summary.ID);
    expect(mail).toMatchObject({ Subject: 'You have received a secret', To: [{ Address: RECIPIENT }] });
    expect(mail.From.Address).toBe(/<(.+)>/.exec(MAILPIT_SENDER)![1]);
    expect(mail.Text).toContain(`${EMAIL} has sent you a secret`);
    expect(mail.Text).toContain(printedUrl);
    expect(mail.HTML).toContain(`href="${printedUrl}"`);
    expect(JSON.stringify(mail)).not.toContain('hunter2');
    expect(await mailpit.messages()).toHaveLength(1);

    const audit = await send('GET', `/api/v2/pushes/${create.body.url_token}/audit`, { headers });
    const sent = (audit.body.logs as { kind: string; notify_by_email?: Record<string, unknown> }[]).find((entry) => entry.kind === 'creation_email_send');
    expect(sent?.notify_by_email).toMatchObject({ recipients: RECIPIENT, status: 'completed', successful_sends: RECIPIENT });
    // The secret is still there for its recipient: the mail used no view, this retrieval the first.
    const retrieved = await send('GET', `/api/v2/pushes/${create.body.url_token}`);
    expect(retrieved.body).toMatchObject({ payload: SECRET, views_remaining: create.body.expire_after_views - 1 });
  });

  it('on an instance without mail, tells the CLI so: it warns and pushes without notify_emails_to', async () => {
    const withoutMail = await startTestApp();
    try {
      const capabilities = await cliRequest(withoutMail.baseUrl, 'GET', '/api/v2/version', { headers: { Authorization: `Bearer ${await withoutMail.createUser(EMAIL)}` } });
      expect(capabilities.body.features.pushes.email_auto_dispatch).toBe(false);
      expect(emailNotificationsEnabled(capabilities.body as VersionAnswer)).toBe(false);
    } finally {
      await withoutMail.close({ drop: true });
    }
  });
});
