import { request as httpRequest } from 'node:http';
import { openApiValidator } from './support/openapi-validator';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The reference's official command-line client, pwpush-cli 0.16 (Python, `requests`), replayed
 * byte for byte: the headers it sends (its User-Agent, the Bearer header together with the legacy
 * X-User-Email/X-User-Token pair), JSON bodies as Python's json.dumps writes them, with the values
 * its config file gives (strings), `expire_after_duration` for the days it knows, and what it reads
 * from each answer (pwpush/api/client.py, endpoints.py, capabilities.py, commands/*.py).
 */

const USER_AGENT = 'pwpush-cli/0.16.0';
const EMAIL = 'cli-user@example.com';

/** pwpush-cli's days → expire_after_duration table (endpoints.py, _DURATION_BY_DAYS). */
const DURATION_BY_DAYS: Record<number, number> = { 1: 6, 2: 7, 3: 8, 4: 9, 5: 10, 6: 11, 7: 12, 14: 13, 21: 14, 30: 15, 60: 16, 90: 17 };

interface CliAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

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

describe('the official CLI, pwpush-cli 0.16, against this service', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    // No PWP__ENABLE_* settings: the kinds have their defaults.
    app = await startTestApp({ PWP__ENABLE_URL_PUSHES: undefined, PWP__ENABLE_QR_PUSHES: undefined, PWP__ENABLE_FILE_PUSHES: undefined });
    token = await app.createUser(EMAIL);
  });
  afterAll(() => app.close({ drop: true }));

  /** client.py's build_auth_headers: the Bearer header, plus the legacy pair when an email is configured. */
  const authHeaders = (credentials: { token?: string; email?: string } = { token, email: EMAIL }): Record<string, string> => {
    if (!credentials.token) return {};
    const headers: Record<string, string> = { Authorization: `Bearer ${credentials.token}` };
    if (credentials.email) Object.assign(headers, { 'X-User-Email': credentials.email, 'X-User-Token': credentials.token });
    return headers;
  };

  /** One request as `requests` sends it: its default headers, then the CLI's, then the body's. */
  function send(method: string, path: string, options: { json?: unknown; headers?: Record<string, string> } = {}): Promise<CliAnswer> {
    const body = options.json === undefined ? undefined : Buffer.from(pythonJson(options.json));
    const headers: Record<string, string> = {
      'User-Agent': USER_AGENT,
      'Accept-Encoding': 'gzip, deflate',
      Accept: '*/*',
      Connection: 'keep-alive',
      ...options.headers,
      ...(body
        ? { 'Content-Length': String(body.length), 'Content-Type': 'application/json' }
        : method === 'DELETE'
          ? { 'Content-Length': '0' }
          : {}),
    };
    const url = new URL(path, app.baseUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const status = res.statusCode ?? 0;
          const fetchHeaders = new Headers(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
          openApiValidator().assert({ method, path, status, headers: fetchHeaders, body: parsed, text });
          resolve({ status, headers: res.headers, text, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** capabilities.py's detect_api_profile: v2 when GET /api/v2/version answers 200 (only the Bearer header is sent). */
  async function detectProfile(withToken = token): Promise<'v2' | 'legacy'> {
    const answer = await send('GET', '/api/v2/version', { headers: withToken ? { Authorization: `Bearer ${withToken}` } : {} });
    return answer.status === 200 ? 'v2' : 'legacy';
  }

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

  /** What the CLI prints for an answer that is not the one it wanted (error_json): body["error"], else the text. */
  const cliError = (answer: CliAnswer): string => (typeof answer.body?.error === 'string' ? answer.body.error : answer.text);

  it('detects API v2 from the version endpoint, with or without a token, and logs in on the active list', async () => {
    expect(await detectProfile()).toBe('v2');
    expect(await detectProfile('')).toBe('v2');
    // auth.py's login_cmd: the first of validation_paths("v2") that is not a 404 must answer 200.
    const login = await send('GET', '/api/v2/pushes/active', { headers: authHeaders() });
    expect(login.status).toBe(200);
    expect(Array.isArray(login.body)).toBe(true);
  });

  it('refuses a wrong token with 401 and an error the CLI prints, on login and on every command', async () => {
    const wrong = authHeaders({ token: 'pwp_wrong', email: EMAIL });
    for (const [method, path] of [
      ['GET', '/api/v2/pushes/active'],
      ['GET', '/api/v2/pushes/expired'],
      ['POST', '/api/v2/pushes'],
    ]) {
      const answer = await send(method, path, {
        headers: wrong,
        json: method === 'POST' ? { push: { payload: 'x', kind: 'text' } } : undefined,
      });
      expect([path, answer.status, cliError(answer)]).toEqual([path, 401, 'Invalid or revoked API token.']);
    }
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
