import { randomBytes, randomUUID } from 'node:crypto';
import { sha256 } from '../support/helpers';
import { rawRequest, type RawAnswer } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Clients of the reference's API v1 that no one here wrote, replayed from their public source
 * (file:line at the commit named): each request as its HTTP stack puts it on the wire (headers in
 * its order and spelling, bodies byte for byte where the encoding matters), each answer checked
 * against openapi.json and then read as the client reads it.
 * - grulicht/terraform-provider-pwpush @ c89e9ce (Go, net/http and mime/multipart);
 * - adamburley/PassPushPosh 1.3.2 @ d5f83e2 (PowerShell 7, Invoke-WebRequest);
 * - thekamilpro/kppwpush 1.0.0 @ b29d429 (Windows PowerShell 5.1, Invoke-WebRequest -UseBasicParsing).
 */

type RawHeaders = [string, string][];

type Answer = RawAnswer;

interface Upload {
  filename: string;
  bytes: Buffer;
}

/** Exactly these headers, in this order, after Host (Node then adds only its Connection header when none is given). */
async function send(baseUrl: string, method: string, path: string, headers: RawHeaders, body?: Buffer): Promise<Answer> {
  const url = new URL(path, baseUrl);
  return rawRequest(url, { method, headers: [['Host', url.host], ...headers].flat() }, body);
}


/** A recipient's download of a retrieval's files[].url: the SHA-256 of its bytes, or the status when it is not a 200. */
async function downloaded(url: string): Promise<string | number> {
  const answer = await fetch(url);
  return answer.status === 200 ? sha256(Buffer.from(await answer.arrayBuffer())) : answer.status;
}

interface TypedBody {
  contentType: string;
  body: Buffer;
}

interface Part {
  headers: string[];
  data: Buffer;
}

/** The framing both Go's and .NET's writers give a multipart body: `--boundary` before each part, `--boundary--` after the last. */
function multipart(contentType: string, boundary: string, parts: Part[]): TypedBody {
  const framed = parts.flatMap((part, index) => [
    Buffer.from(`${index === 0 ? '' : '\r\n'}--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`),
    part.data,
  ]);
  return { contentType, body: Buffer.concat([...framed, Buffer.from(`\r\n--${boundary}--\r\n`)]) };
}

const countPushes = async (app: TestApp): Promise<number> =>
  Number((await app.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM pushes'))[0].n);

// ---------------------------------------------------------------------------------------------
// grulicht/terraform-provider-pwpush: internal/resource_push.go

/** resource_push.go L101-111: the optional fields, from a Go map literal, so each run sends them in another order. */
const TERRAFORM_FIELDS = [
  'kind',
  'note',
  'name',
  'passphrase',
  'expire_after_days',
  'expire_after_views',
  'deletable_by_viewer',
  'retrieval_step',
  'account_id',
] as const;
type TerraformField = (typeof TERRAFORM_FIELDS)[number];

interface TerraformPush extends Partial<Record<TerraformField, string | number | boolean>> {
  payload: string;
  files?: Upload[];
}

/**
 * Go's mime/multipart Writer: a 60-hex boundary, unquoted; WriteField parts carry only their
 * disposition, CreateFormFile parts add `Content-Type: application/octet-stream`.
 */
function goMultipart(fields: [string, string][], files: { field: string; upload: Upload }[]): TypedBody {
  const boundary = randomBytes(30).toString('hex');
  const parts = [
    ...fields.map(([name, value]) => ({ headers: [`Content-Disposition: form-data; name="${name}"`], data: Buffer.from(value) })),
    ...files.map(({ field, upload }) => ({
      headers: [`Content-Disposition: form-data; name="${field}"; filename="${upload.filename}"`, 'Content-Type: application/octet-stream'],
      data: upload.bytes,
    })),
  ];
  return multipart(`multipart/form-data; boundary=${boundary}`, boundary, parts);
}

/**
 * What Go's http.Client writes: Host, its User-Agent, Content-Length for a body, the request's
 * headers sorted by name, then the Transport's `Accept-Encoding: gzip`.
 */
function goRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: TypedBody) {
  const set = Object.entries({ ...headers, ...(body ? { 'Content-Type': body.contentType } : {}) }).sort(([a], [b]) => (a < b ? -1 : 1));
  const lengthHeader: RawHeaders = body ? [['Content-Length', String(body.body.length)]] : [];
  return send(
    baseUrl,
    method,
    path,
    [['User-Agent', 'Go-http-client/1.1'], ...lengthHeader, ...set, ['Accept-Encoding', 'gzip']],
    body?.body,
  );
}

describe('Terraform: grulicht/terraform-provider-pwpush', () => {
  const EMAIL = 'terraform@example.com';
  let app: TestApp;
  /** provider.go's email and token, sent as X-User-Email and X-User-Token (L148-153), never Authorization. */
  let auth: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    auth = { 'X-User-Email': EMAIL, 'X-User-Token': await app.createUser(EMAIL) };
  });
  afterAll(() => app.close({ drop: true }));

  /**
   * resourcePwpushPushCreate: `password[payload]`, then the map's fields that d.GetOk finds set
   * (kind defaults to "text"; "", 0 and false are Go's zero values, never sent), formatted by
   * `%v` ("true", "7"), then each file as `password[files][]`. Any status from 300 up is an error;
   * otherwise it keeps url_token (the resource's id) and html_url.
   */
  async function apply(resource: TerraformPush, order: readonly TerraformField[] = TERRAFORM_FIELDS, headers = auth) {
    const values: Partial<Record<TerraformField, string | number | boolean>> = { kind: 'text', ...resource };
    const fields: [string, string][] = [['password[payload]', resource.payload]];
    for (const field of order) {
      const value = values[field];
      if (value !== undefined && value !== '' && value !== 0 && value !== false) fields.push([`password[${field}]`, String(value)]);
    }
    const body = goMultipart(
      fields,
      (resource.files ?? []).map((upload) => ({ field: 'password[files][]', upload })),
    );
    const answer = await goRequest(app.baseUrl, 'POST', '/p.json', headers, body);
    return {
      answer,
      id: answer.status < 300 ? (answer.body.url_token as string) : undefined,
      htmlUrl: answer.body?.html_url as string | undefined,
    };
  }

  /** resourcePwpushPushDelete: DELETE with no body; 200, 204, 404 and 410 all count as destroyed (L205-214). */
  const destroy = (id: string) => goRequest(app.baseUrl, 'DELETE', `/p/${id}.json`, auth);
  const retrieve = (id: string) => send(app.baseUrl, 'GET', `/p/${id}.json`, []);

  it('creates pushes as terraform apply does, in any order of the map: kind=text always, only true booleans, account_id inside the wrapper', async () => {
    const resource: TerraformPush = {
      payload: 'db-password-123',
      note: 'managed by terraform',
      name: 'prod db',
      expire_after_days: 3,
      expire_after_views: 2,
      deletable_by_viewer: true,
      retrieval_step: false,
      account_id: 3,
    };
    const reordered = [...TERRAFORM_FIELDS].sort();
    for (const order of [TERRAFORM_FIELDS, [...TERRAFORM_FIELDS].reverse(), reordered]) {
      const { answer, id, htmlUrl } = await apply(resource, order);
      expect([order, answer.status]).toEqual([order, 201]);
      expect(answer.body).toMatchObject({
        kind: 'text',
        note: 'managed by terraform',
        name: 'prod db',
        expire_after_days: 3,
        expire_after_views: 2,
        deletable_by_viewer: true,
        // false is Go's zero value, which the provider never sends: the instance's default holds.
        retrieval_step: true,
      });
      expect(htmlUrl).toBe(`${app.baseUrl}/p/${id}/r`);
      expect((await retrieve(id!)).body).toMatchObject({ payload: 'db-password-123', views_remaining: 1 });
    }
  });

  it('makes a file push from password[files][] sent beside password[kind]=text; each file downloads byte for byte', async () => {
    const files = [
      { filename: 'id_ed25519', bytes: randomBytes(400) },
      { filename: 'backup.tar.gz', bytes: randomBytes(80_000) },
    ];
    const { answer, id } = await apply({ payload: 'see the files', files });
    expect(answer.status).toBe(201);
    expect(answer.body.kind).toBe('file');
    const retrieved = await retrieve(id!);
    expect(retrieved.body.payload).toBe('see the files');
    const listed = retrieved.body.files as { filename: string; url: string }[];
    expect(listed.map((file) => file.filename)).toEqual(['id_ed25519', 'backup.tar.gz']);
    for (const [index, file] of listed.entries()) expect(await downloaded(file.url)).toBe(sha256(files[index].bytes));
  });

  it('terraform destroy: DELETE /p/:url_token.json answers 200 and the secret is gone (a 404 there was taken for "already gone")', async () => {
    const text = await apply({ payload: 'short-lived', expire_after_views: 5 });
    const destroyed = await destroy(text.id!);
    expect(destroyed.status).toBe(200);
    expect(destroyed.body).toMatchObject({ url_token: text.id, expired: true, deleted: true });
    expect((await retrieve(text.id!)).body).toMatchObject({ expired: true, payload: null });

    const withFile = await apply({ payload: 'with a file', files: [{ filename: 'token.txt', bytes: randomBytes(1000) }] });
    const fileUrl = ((await retrieve(withFile.id!)).body.files as { url: string }[])[0].url;
    expect((await destroy(withFile.id!)).status).toBe(200);
    expect((await retrieve(withFile.id!)).body).toMatchObject({ expired: true, payload: null, files: [] });
    expect(await downloaded(fileUrl)).toBe(404);

    // A second destroy (a retried run) finds it deleted: still 200; a token the service never issued is the 404 it takes for gone.
    expect((await destroy(text.id!)).status).toBe(200);
    const unknown = await destroy('doesnotexist0000000000000');
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not-found' } });
  });

  it('fails terraform apply with a 401 when a token is configured without an email (X-User-Token alone), as the reference does', async () => {
    const before = await countPushes(app);
    const { answer } = await apply({ payload: 'not anonymous' }, TERRAFORM_FIELDS, { 'X-User-Token': auth['X-User-Token'] });
    expect(answer.status).toBe(401);
    expect(await countPushes(app)).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------
// adamburley/PassPushPosh 1.3.2 (PowerShell 7)

/** Invoke-RestMethod's own User-Agent, as Initialize-PassPushPosh's version probe sends it (it sets none). */
const POWERSHELL_7_USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.22631; en-US) PowerShell/7.4.6';

/** PasswordPush.ps1's constructor (L27-50): the fields it copies into typed properties ([int] of $null is 0; a [DateTime] must parse). */
function passwordPush(json: Record<string, any>) {
  const int = (value: unknown): number => {
    if (value === null || value === undefined) return 0;
    if (!Number.isInteger(value)) throw new Error(`not a whole number: ${JSON.stringify(value)}`);
    return value as number;
  };
  const date = (value: unknown): number => {
    const time = Date.parse(String(value));
    if (Number.isNaN(time)) throw new Error(`[DateTime] cannot convert ${JSON.stringify(value)}`);
    return time;
  };
  return {
    Note: String(json.note ?? ''),
    Payload: String(json.payload ?? ''),
    IsExpired: Boolean(json.expired),
    IsDeleted: Boolean(json.deleted),
    IsDeletableByViewer: Boolean(json.deletable_by_viewer),
    ExpireAfterDays: int(json.expire_after_days),
    DaysRemaining: int(json.days_remaining),
    ExpireAfterViews: int(json.expire_after_views),
    ViewsRemaining: int(json.views_remaining),
    DateCreated: date(json.created_at),
    DateUpdated: date(json.updated_at),
    DateExpired: json.expired_on ? date(json.expired_on) : 0,
    RetrievalStep: Boolean(json.retrieval_step),
    AccountId: int(json.account_id),
    UrlToken: String(json.url_token ?? ''),
    // L44-46: the page links, derived from json_url by dropping `.json`.
    LinkDirect: String(json.json_url ?? '').replace('.json', ''),
    LinkRetrievalStep: `${String(json.json_url ?? '').replace('.json', '')}/r`,
    Files: (json.files as { filename: string; content_type: string; url: string }[] | undefined)?.length ? json.files : undefined,
  };
}

/**
 * .NET's MultipartFormDataContent as Invoke-WebRequest -Form fills it: a GUID boundary, quoted in
 * Content-Type; each value a StringContent (its own `Content-Type: text/plain; charset=utf-8`,
 * set before the disposition), each FileInfo a StreamContent with `filename=` and `filename*=`.
 * Entries come in the Hashtable's order.
 */
function dotNetMultipart(entries: [string, string | Upload[]][]): TypedBody {
  const boundary = randomUUID();
  const parts = entries.flatMap(([name, value]) =>
    typeof value === 'string'
      ? [
          {
            headers: ['Content-Type: text/plain; charset=utf-8', `Content-Disposition: form-data; name="${name}"`],
            data: Buffer.from(value),
          },
        ]
      : value.map((upload) => ({
          headers: [
            `Content-Disposition: form-data; name="${name}"; filename=${upload.filename}; filename*=utf-8''${encodeURIComponent(upload.filename)}`,
            'Content-Type: application/octet-stream',
          ],
          data: upload.bytes,
        })),
  );
  return multipart(`multipart/form-data; boundary="${boundary}"`, boundary, parts);
}

describe('PowerShell: adamburley/PassPushPosh', () => {
  const EMAIL = 'msp-admin@example.com';
  // New-PasswordPusherUserAgent.ps1 L6-12: the module, the OS version, 20 characters of base64(UTF-16 "user@domain").
  const USER_AGENT = `PassPushPosh/1.3.2 Microsoft Windows NT 10.0.22631.0/${Buffer.from('alice@CONTOSO', 'utf16le').toString('base64').slice(0, 20)}`;
  let app: TestApp;
  let token: string;
  /** Initialize-PassPushPosh's sessions (L116-151): -Bearer, -UseLegacyAuthentication, anonymous. */
  let bearer: RawHeaders;
  let legacy: RawHeaders;
  const anonymous: RawHeaders = [];

  beforeAll(async () => {
    app = await startTestApp();
    token = await app.createUser(EMAIL);
    bearer = [['Authorization', `Bearer ${token}`]];
    legacy = [
      ['X-User-Email', EMAIL],
      ['X-User-Token', token],
    ];
  });
  afterAll(() => app.close({ drop: true }));

  /**
   * Invoke-PasswordPusherAPI.ps1 (L17-42): every call that is not a form sends
   * `Content-Type: application/json` and `$body | ConvertTo-Json` (indented; CRLF on Windows),
   * which for no body is the four bytes `null`, on GET and DELETE too.
   */
  function call(method: string, endpoint: string, session: RawHeaders, options: { json?: unknown; form?: TypedBody } = {}) {
    const body =
      options.form?.body ?? Buffer.from(options.json === undefined ? 'null' : JSON.stringify(options.json, null, 2).replace(/\n/g, '\r\n'));
    const contentType = options.form?.contentType ?? 'application/json';
    return send(
      app.baseUrl,
      method,
      `/${endpoint}`,
      [['User-Agent', USER_AGENT], ...session, ['Content-Type', contentType], ['Content-Length', String(body.length)]],
      body,
    );
  }

  /** New-Push.ps1 L196-263 with JSON: `{"password": $passVals, "account_id": n}` (a Hashtable: its keys come in no written order). */
  async function newPush(password: Record<string, unknown>, session: RawHeaders, accountId?: number) {
    const answer = await call('POST', 'p.json', session, {
      json: accountId === undefined ? { password } : { account_id: accountId, password },
    });
    expect(answer.status).toBe(201);
    return answer.body as Record<string, any>;
  }

  it('Initialize-PassPushPosh (automatic) reads api_version from /api/v1/version.json and picks Bearer; Get-PushApiVersion returns it', async () => {
    // Initialize-PassPushPosh.ps1 L136: Invoke-RestMethod, no body, no headers of the module's.
    const probe = await send(app.baseUrl, 'GET', '/api/v1/version.json', [['User-Agent', POWERSHELL_7_USER_AGENT]]);
    expect(probe.status).toBe(200);
    // `.Api_Version` finds the property whatever its case; `-gt 1.0` then compares strings ("1.5" against "1").
    const apiVersion = Object.entries(probe.body as Record<string, unknown>).find(([name]) => name.toLowerCase() === 'api_version')?.[1];
    expect(typeof apiVersion === 'string' && apiVersion > String(1.0)).toBe(true);

    const version = await call('GET', 'api/v1/version.json', anonymous);
    expect(version.status).toBe(200);
    expect(Object.keys(version.body)).toContain('api_version');
  });

  it('New-Push sends its JSON (account_id beside the wrapper) and reads a PasswordPush; Get-SecretLink reads the url of preview.json', async () => {
    const created = await newPush(
      {
        retrieval_step: true,
        note: 'for the new hire',
        payload: 'S3cure!',
        expire_after_views: 12,
        kind: 'text',
        deletable_by_viewer: true,
        expire_after_days: 1,
      },
      bearer,
      3,
    );
    expect(passwordPush(created)).toMatchObject({
      Note: 'for the new hire',
      RetrievalStep: true,
      IsExpired: false,
      IsDeleted: false,
      IsDeletableByViewer: true,
      ExpireAfterDays: 1,
      DaysRemaining: 1,
      ExpireAfterViews: 12,
      ViewsRemaining: 12,
      DateExpired: 0,
      // v1's json_url is the reference's ({base}/p/{url_token}.json), so the links it derives are the pages.
      LinkDirect: `${app.baseUrl}/p/${created.url_token}`,
      LinkRetrievalStep: `${app.baseUrl}/p/${created.url_token}/r`,
    });
    const link = await call('GET', `p/${created.url_token}/preview.json`, bearer);
    expect(link.status).toBe(200);
    // Get-SecretLink.Tests.ps1 L16: the secret link is the push's html_url.
    expect(link.body.url).toBe(created.html_url);
    expect(link.body.url).toBe(`${app.baseUrl}/p/${created.url_token}/r`);
  });

  it('Get-Push sends GET /p/:url_token.json with a JSON body of null, ?passphrase= as typed; its errors are the JSON it compares', async () => {
    const created = await newPush({ passphrase: 'tulip garden', payload: 'S3cure!', kind: 'text' }, bearer);
    const urlToken = created.url_token as string;

    // Without the passphrase: JSON with an error (Test-Json passes, so the module shows the error rather than "not parseable").
    const refused = await call('GET', `p/${urlToken}.json`, anonymous);
    expect([refused.status, refused.body.error]).toEqual([401, 'That passphrase is incorrect.']);
    // Get-Push.ps1 L23 puts the passphrase in the URL as typed; .NET's Uri escapes its space.
    const retrieved = await call('GET', `p/${urlToken}.json?passphrase=tulip%20garden`, anonymous);
    expect(retrieved.status).toBe(200);
    expect(passwordPush(retrieved.body)).toMatchObject({
      Payload: 'S3cure!',
      ViewsRemaining: 4,
      IsExpired: false,
      UrlToken: urlToken,
      Files: undefined,
    });

    // Get-Push.ps1 L26: 'not-found' is the error it names.
    const unknown = await call('GET', 'p/doesnotexist0000000000000.json', anonymous);
    expect([unknown.status, unknown.body.error]).toEqual([404, 'not-found']);
  });

  it('New-Push -File sends the form as .NET writes it; Get-Push lists files[] and each downloads byte for byte', async () => {
    const files = [
      { filename: 'notes.txt', bytes: Buffer.from('Wi-Fi: guest / hunter2\r\n') },
      { filename: 'vpn.ovpn', bytes: randomBytes(90_000) },
    ];
    // New-Push.ps1 L240-245: every $passVals entry as password[name] (booleans as PowerShell prints them), the files, account_id.
    const form = dotNetMultipart([
      ['password[retrieval_step]', 'False'],
      ['account_id', '3'],
      ['password[files][]', files],
      ['password[kind]', 'file'],
      ['password[deletable_by_viewer]', 'True'],
      ['password[payload]', 'files for the new office'],
      ['password[expire_after_views]', '2'],
    ]);
    const created = await call('POST', 'p.json', bearer, { form });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'file', retrieval_step: false, deletable_by_viewer: true, expire_after_views: 2 });

    const retrieved = await call('GET', `p/${created.body.url_token}.json`, anonymous);
    const push = passwordPush(retrieved.body);
    expect(push).toMatchObject({ Payload: 'files for the new office', ViewsRemaining: 1 });
    expect((push.Files as { filename: string }[]).map((file) => file.filename)).toEqual(['notes.txt', 'vpn.ovpn']);
    // Get-Push.ps1 L38-40: Invoke-WebRequest -Uri $f.url -OutFile, with no credentials.
    for (const [index, file] of (push.Files as { url: string }[]).entries())
      expect(await downloaded(file.url)).toBe(sha256(files[index].bytes));
  });

  it('Get-PushAuditLog reads .views; a foreign push and an unknown token give the errors it prints', async () => {
    const created = await newPush({ payload: 'audited', kind: 'text' }, legacy);
    expect((await call('GET', `p/${created.url_token}.json`, anonymous)).status).toBe(200);
    const audit = await call('GET', `p/${created.url_token}/audit.json`, legacy);
    expect(audit.status).toBe(200);
    const views = audit.body.views as Record<string, unknown>[];
    expect(views.map((entry) => entry.kind)).toEqual(['creation', 'view']);
    expect(views[1]).toEqual({
      kind: 'view',
      ip: expect.any(String),
      user_agent: USER_AGENT,
      referrer: '',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    // Get-PushAuditLog.Tests.ps1 L17-26: the module prints these errors as they come.
    const foreign = await newPush({ payload: 'anonymous', kind: 'text' }, anonymous);
    const refused = await call('GET', `p/${foreign.url_token}/audit.json`, legacy);
    expect([refused.status, refused.body.error]).toEqual([403, "That push doesn't belong to you."]);
    const unknown = await call('GET', 'p/invalidtoken/audit.json', legacy);
    expect([unknown.status, unknown.body.error]).toEqual([404, 'not-found']);
  });

  it('Get-Dashboard reads /p/active.json and /p/expired.json as arrays of PasswordPush', async () => {
    const created = await newPush({ payload: 'on the dashboard', kind: 'text', note: 'dashboard' }, bearer);
    const active = await call('GET', 'p/active.json', bearer);
    expect(active.status).toBe(200);
    const activePushes = (active.body as Record<string, any>[]).map(passwordPush);
    expect(activePushes.map((push) => push.UrlToken)).toContain(created.url_token);
    expect(activePushes.every((push) => !push.IsExpired && !push.IsDeleted)).toBe(true);
    expect(activePushes.find((push) => push.UrlToken === created.url_token)?.Note).toBe('dashboard');

    expect((await call('DELETE', `p/${created.url_token}.json`, bearer)).status).toBe(200);
    const expired = await call('GET', 'p/expired.json', bearer);
    expect(expired.status).toBe(200);
    const expiredPushes = (expired.body as Record<string, any>[]).map(passwordPush);
    expect(expiredPushes.map((push) => push.UrlToken)).toContain(created.url_token);
    expect(expiredPushes.every((push) => push.IsExpired || push.IsDeleted)).toBe(true);
  });

  it("Remove-Push sends DELETE with a JSON body of null: IsDeleted for a deletable push and the owner's, the exact error otherwise", async () => {
    const deletable = await newPush({ deletable_by_viewer: true, payload: 'delete me', kind: 'text' }, anonymous);
    const removed = await call('DELETE', `p/${deletable.url_token}.json`, anonymous);
    expect(removed.status).toBe(200);
    expect(passwordPush(removed.body)).toMatchObject({ IsDeleted: true, IsExpired: true, UrlToken: deletable.url_token });

    // Remove-Push.Tests.ps1 L23: "Unable to remove Push with token [t]. Error: That push is not deletable by viewers."
    const kept = await newPush({ deletable_by_viewer: false, payload: 'keep me', kind: 'text' }, anonymous);
    const refused = await call('DELETE', `p/${kept.url_token}.json`, anonymous);
    expect([refused.status, refused.body.error]).toEqual([401, 'That push is not deletable by viewers.']);
    expect((await call('GET', `p/${kept.url_token}.json`, anonymous)).body.payload).toBe('keep me');

    const owned = await newPush({ deletable_by_viewer: false, payload: 'mine', kind: 'text' }, bearer);
    const ownerRemoved = await call('DELETE', `p/${owned.url_token}.json`, bearer);
    expect(passwordPush(ownerRemoved.body)).toMatchObject({ IsDeleted: true, IsExpired: true });
  });
});

// ---------------------------------------------------------------------------------------------
// thekamilpro/kppwpush 1.0.0 (Windows PowerShell 5.1): URL pushes under /r

/** Windows PowerShell 5.1's ConvertTo-Json: four-space indents, two spaces after each colon, nested objects aligned under their key, & escaped. */
function windowsPowerShellJson(wrapper: string, fields: [string, string | number | boolean][]): string {
  const pad = ' '.repeat(16);
  const lines = fields.map(
    ([name, value], index) => `${pad}"${name}":  ${JSON.stringify(value).replace(/&/g, '\\u0026')}${index < fields.length - 1 ? ',' : ''}`,
  );
  return ['{', `    "${wrapper}":  {`, ...lines, '            }', '}'].join('\r\n');
}

describe('PowerShell: thekamilpro/kppwpush, URL pushes on /r', () => {
  const EMAIL = 'kp@example.com';
  const USER_AGENT = 'Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1.22621.4391';
  const URL_PAYLOAD = 'https://intranet.example.com/welcome?id=42&lang=en';
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    token = await app.createUser(EMAIL);
  });
  afterAll(() => app.close({ drop: true }));

  /**
   * Invoke-PwpushRequest.ps1 (L27-52): Connect-Pwpush's credential as X-User-Email and
   * X-User-Token; a body and `-ContentType application/json` only on POST, which .NET Framework's
   * HttpWebRequest sends with `Expect: 100-continue`. Invoke-WebRequest throws on any status that
   * is not a success; the content is then ConvertFrom-Json'd.
   */
  async function request(method: string, endpoint: string, body?: string): Promise<Answer> {
    const headers: RawHeaders = [
      ['X-User-Email', EMAIL],
      ['X-User-Token', token],
      ['User-Agent', USER_AGENT],
    ];
    if (body !== undefined)
      headers.push(['Content-Type', 'application/json'], ['Content-Length', String(Buffer.byteLength(body))], ['Expect', '100-continue']);
    headers.push(['Connection', 'Keep-Alive']);
    const answer = await send(app.baseUrl, method, `/${endpoint}`, headers, body === undefined ? undefined : Buffer.from(body));
    expect([method, endpoint, answer.status >= 200 && answer.status < 300]).toEqual([method, endpoint, true]);
    return answer;
  }

  it('New-PwpushUrl posts every field to /r.json, deletable_by_viewer included (a URL push has none), and the push reads back under /r', async () => {
    // New-PwpushUrl.ps1 L37-53: the defaults, then -Note and -Passphrase as bound, in a Hashtable's order.
    const body = windowsPowerShellJson('url', [
      ['expire_after_views', 5],
      ['passphrase', 'onboarding'],
      ['payload', URL_PAYLOAD],
      ['deletable_by_viewer', true],
      ['note', 'Onboarding link'],
      ['retrieval_step', false],
      ['expire_after_days', 7],
    ]);
    const created = await request('POST', 'r.json', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'url',
      deletable_by_viewer: null,
      retrieval_step: false,
      expire_after_days: 7,
      expire_after_views: 5,
      note: 'Onboarding link',
      passphrase_protected: true,
    });
    const urlToken = created.body.url_token as string;

    // Get-PwpushUrlPreview.ps1 L22.
    expect((await request('GET', `r/${urlToken}/preview.json`)).body).toEqual({ url: `${app.baseUrl}/p/${urlToken}` });
    // Get-PwpushUrlActive.ps1 L11.
    const active = await request('GET', 'r/active.json');
    expect((active.body as { url_token: string; kind: string }[]).find((push) => push.url_token === urlToken)).toMatchObject({
      kind: 'url',
      note: 'Onboarding link',
    });
    // Get-PwpushUrl.ps1 L24-29: ?passphrase= as typed; the module always sends its credential, and an owner's view does not count.
    const retrieved = await request('GET', `r/${urlToken}.json?passphrase=onboarding`);
    expect(retrieved.body).toMatchObject({ kind: 'url', payload: URL_PAYLOAD, views_remaining: 5 });

    // Remove-PwpushUrl.ps1 and Get-PwpushUrlExpired.ps1.
    expect((await request('DELETE', `r/${urlToken}.json`)).body).toMatchObject({ expired: true, deleted: true });
    expect(((await request('GET', 'r/expired.json')).body as { url_token: string }[]).map((push) => push.url_token)).toContain(urlToken);
  });
});
