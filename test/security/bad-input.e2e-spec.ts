import { openApiValidator } from '../support/openapi-validator';
import { OWNED_PUSH_KEYS, RETRIEVED_PUSH_KEYS, keysOf } from '../support/push-keys';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Hostile and malformed input: every request here must get a JSON error with a string `error`
 * (422s add `errors: { field: string[] }`), or be accepted where the contract says so, and never
 * a 500. The server must keep serving afterwards.
 */

const PUSH_MISSING = 'param is missing or the value is empty or invalid: push';
const PAYLOAD_REQUIRED = 'Payload is required.';
const TOO_DEEP = 'Malformed request body: nested more than 32 levels deep.';
const UNSUPPORTED_TYPE = 'Unsupported Content-Type: send the body as application/json, application/x-www-form-urlencoded or multipart/form-data.';
const COMPRESSED = 'Compressed request bodies are not accepted: send the body without a Content-Encoding.';
const TEXT_MAX = 1_048_576;

interface Result {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * Sends exactly these bytes. Deliberately not support/http's client: these requests are not the
 * documented API, and the answer's shape is what this file asserts. The answers are still held to
 * openapi.json, as every e2e answer is: hostile input must get a documented status and body.
 */
async function send(baseUrl: string, req: Req): Promise<Result> {
  const response = await fetch(`${baseUrl}${req.path}`, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  openApiValidator().assert({ method: req.method, path: req.path, status: response.status, headers: response.headers, body, text });
  return { status: response.status, headers: response.headers, body, text };
}

interface Req {
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/**
 * What a case expects besides the status: for 422 the field named in `errors`; for 2xx a subset
 * of the response body; optionally the exact `error` message.
 */
type Expectation = string | Record<string, unknown> | undefined;

const PUSHES = '/api/v2/pushes';
const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };

/** POST /api/v2/pushes with this exact body text, as application/json unless told otherwise. */
const raw = (body: string | Buffer, headers: Record<string, string> = JSON_TYPE): Req => ({ method: 'POST', path: PUSHES, body, headers });
/** POST /api/v2/pushes with a JSON-serialised body. */
const json = (value: unknown): Req => raw(JSON.stringify(value));
/** POST /api/v2/pushes with `{"push": fields}`. */
const push = (fields: Record<string, unknown>): Req => json({ push: fields });
/** A text push with one field set to `value`. */
const text = (field: string, value: unknown): Req => push({ payload: 'secret', [field]: value });
const form = (body: string): Req => raw(body, FORM_TYPE);
const call = (method: string, path: string, headers?: Record<string, string>): Req => ({ method, path, headers });

const nested = (depth: number, open: string, close: string, inner: string) => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

/** `{"push":{"payload":"x","<field>":<value>}}` for values JSON.stringify cannot produce. */
const rawField = (field: string, value: string) => raw(`{"push":{"payload":"x","${field}":${value}}}`);

type Case = [name: string, req: Req, status: number, expect?: Expectation, error?: string];

/** Cases that need no existing push. */
const cases: Case[] = [
  // Malformed JSON
  ['JSON truncated', raw('{"push":{"payload":"x"'), 400],
  ['JSON with trailing garbage', raw('{"push":{"payload":"x"}} trailing'), 400],
  ['JSON with single quotes', raw("{'push':{'payload':'x'}}"), 400],
  ['JSON with NaN', rawField('expire_after_days', 'NaN'), 400],
  ['JSON with Infinity', rawField('expire_after_views', 'Infinity'), 400],
  ['JSON with a trailing comma', raw('{"push":{"payload":"x",}}'), 400],
  ['JSON with a comment', raw('{"push":{"payload":"x"} /* hi */}'), 400],
  ['JSON with an unquoted key', raw('{push:{"payload":"x"}}'), 400],
  ['JSON bare string', raw('"secret"'), 400],
  ['JSON bare number', raw('42'), 400],
  ['JSON bare true', raw('true'), 400],
  ['JSON bare null', raw('null'), 400],
  ['JSON bare array', raw('[{"push":{"payload":"x"}}]'), 400, undefined, PUSH_MISSING],
  ['JSON empty array', raw('[]'), 400, undefined, PUSH_MISSING],
  ['JSON empty object', raw('{}'), 400, undefined, PUSH_MISSING],
  ['empty JSON body', raw(''), 400, undefined, PUSH_MISSING],
  ['whitespace-only JSON body', raw('  \n\t '), 400],
  ['JSON body not valid UTF-8', raw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), 400],
  ['JSON in latin1', raw('{"push":{"payload":"x"}}', { 'content-type': 'application/json; charset=latin1' }), 400, undefined, 'Malformed request body: unsupported charset (send UTF-8).'],
  ['JSON with a bogus gzip Content-Encoding', raw('{"push":{"payload":"x"}}', { ...JSON_TYPE, 'content-encoding': 'gzip' }), 415, undefined, COMPRESSED],
  ['JSON with an unknown Content-Encoding', raw('{"push":{"payload":"x"}}', { ...JSON_TYPE, 'content-encoding': 'bogus' }), 415, undefined, COMPRESSED],
  ['JSON with Content-Encoding: identity (accepted)', raw('{"push":{"payload":"x"}}', { ...JSON_TYPE, 'content-encoding': 'identity' }), 201],
  ['JSON 10,000 unclosed [', raw('['.repeat(10_000)), 400],
  ['JSON 10,000 balanced [ ] as the body', raw(nested(10_000, '[', ']', '')), 400, undefined, TOO_DEEP],
  ['JSON payload nested 10,000 [ deep', raw(`{"push":{"payload":${nested(10_000, '[', ']', '"x"')}}}`), 400, undefined, TOO_DEEP],
  ['JSON unknown key nested 10,000 { deep', raw(`{"push":{"payload":"x","junk":${nested(10_000, '{"a":', '}', '1')}}}`), 400, undefined, TOO_DEEP],
  ['JSON push nested 100,000 [ deep', raw(`{"push":${nested(100_000, '[', ']', '1')}}`), 400, undefined, TOO_DEEP],
  ['JSON unknown key nested 20 { deep (allowed)', raw(`{"push":{"payload":"x","junk":${nested(20, '{"a":', '}', '1')}}}`), 201, { kind: 'text' }],
  ['body over the 13 MiB limit', raw(JSON.stringify({ push: { payload: 'x'.repeat(13 * 1024 * 1024) } })), 413, undefined, 'Request body is too large (limit 13MiB).'],

  // Content types: 415 before the body is read, naming the three it may have
  ['text/plain body', raw('{"push":{"payload":"x"}}', { 'content-type': 'text/plain' }), 415, undefined, UNSUPPORTED_TYPE],
  ['application/xml body', raw('<push><payload>x</payload></push>', { 'content-type': 'application/xml' }), 415, undefined, UNSUPPORTED_TYPE],
  ['no Content-Type', raw(Buffer.from('{"push":{"payload":"x"}}'), {}), 415, undefined, UNSUPPORTED_TYPE],
  ['octet-stream body', raw(Buffer.from('{"push":{"payload":"x"}}'), { 'content-type': 'application/octet-stream' }), 415, undefined, UNSUPPORTED_TYPE],
  ['text/plain on API v1', { ...raw('{"password":{"payload":"x"}}', { 'content-type': 'text/plain' }), path: '/p.json' }, 415, undefined, UNSUPPORTED_TYPE],
  ['an empty text/plain body (no body to refuse)', raw('', { 'content-type': 'text/plain' }), 400, undefined, PUSH_MISSING],

  // The push object
  ['push missing', json({ payload: 'x' }), 400, undefined, PUSH_MISSING],
  ['push null', json({ push: null }), 400, undefined, PUSH_MISSING],
  ['push a string', json({ push: 'secret' }), 400, undefined, PUSH_MISSING],
  ['push a number', json({ push: 42 }), 400, undefined, PUSH_MISSING],
  ['push true', json({ push: true }), 400, undefined, PUSH_MISSING],
  ['push an empty array', json({ push: [] }), 400, undefined, PUSH_MISSING],
  ['push an array of objects', json({ push: [{ payload: 'x' }] }), 400, undefined, PUSH_MISSING],
  ['push an empty object', json({ push: {} }), 400, undefined, PUSH_MISSING],
  ['push with only unknown keys', push({ secret: 'x' }), 422, 'payload', PAYLOAD_REQUIRED],

  // payload
  ['payload missing', push({ kind: 'text' }), 422, 'payload', PAYLOAD_REQUIRED],
  ['payload a number', push({ payload: 42 }), 422, 'payload'],
  ['payload an array', push({ payload: ['x'] }), 422, 'payload'],
  ['payload an object', push({ payload: { value: 'x' } }), 422, 'payload'],
  ['payload a boolean', push({ payload: true }), 422, 'payload'],
  ['payload null', push({ payload: null }), 422, 'payload', PAYLOAD_REQUIRED],
  ['payload empty', push({ payload: '' }), 422, 'payload', PAYLOAD_REQUIRED],
  ['payload whitespace', push({ payload: ' \t\r\n ' }), 422, 'payload', PAYLOAD_REQUIRED],
  ['payload 10 MB', push({ payload: 'x'.repeat(10 * 1024 * 1024) }), 422, 'payload', 'Payload is too long (maximum is 1,048,576 characters).'],
  ['payload of exactly 1,048,576 characters', push({ payload: 'x'.repeat(TEXT_MAX) }), 201],
  ['payload of 1,048,577 characters', push({ payload: 'x'.repeat(TEXT_MAX + 1) }), 422, 'payload'],
  ['payload of 1,048,576 astral characters', push({ payload: '😀'.repeat(TEXT_MAX) }), 201],
  ['payload of 1,048,577 astral characters', push({ payload: '😀'.repeat(TEXT_MAX + 1) }), 422, 'payload'],
  ['payload with a NUL', push({ payload: 'a\u0000b' }), 422, 'payload'],
  ['payload a lone high surrogate', raw('{"push":{"payload":"\\ud800"}}'), 422, 'payload'],
  ['payload a lone low surrogate', raw('{"push":{"payload":"ab\\udfffcd"}}'), 422, 'payload'],
  ['payload surrogates reversed', raw('{"push":{"payload":"\\ude00\\ud83d"}}'), 422, 'payload'],
  ['payload with a valid escaped pair', raw('{"push":{"payload":"\\ud83d\\ude00"}}'), 201],

  // Other text fields
  ['name with a NUL', text('name', 'a\u0000b'), 422, 'name'],
  ['name a lone surrogate', rawField('name', '"\\udbff"'), 422, 'name'],
  ['name over 255 characters', text('name', 'n'.repeat(256)), 422, 'name', 'Name is too long (maximum is 255 characters).'],
  ['name of 255 astral characters', text('name', '😀'.repeat(255)), 201, { name: '😀'.repeat(255) }],
  ['name a number', text('name', 42), 422, 'name'],
  ['passphrase with a NUL', text('passphrase', 'a\u0000b'), 422, 'passphrase'],
  ['passphrase a lone surrogate', rawField('passphrase', '"\\ud800"'), 422, 'passphrase'],
  ['passphrase over 1,024 characters', text('passphrase', 'p'.repeat(1025)), 422, 'passphrase'],
  ['passphrase an object', text('passphrase', { value: 'p' }), 422, 'passphrase'],
  ['note over 10,000 characters', text('note', 'n'.repeat(10_001)), 422, 'note', 'Note is too long (maximum is 10,000 characters).'],
  ['note of exactly 10,000 characters', text('note', 'n'.repeat(10_000)), 201],
  ['note with a NUL', text('note', 'a\u0000b'), 422, 'note'],
  ['note an array', text('note', ['n']), 422, 'note'],

  // kind
  ['kind unknown', text('kind', 'password'), 422, 'kind', 'Kind must be one of text, file, url or qr.'],
  ['kind upper case', text('kind', 'TEXT'), 422, 'kind'],
  ['kind a number', text('kind', 1), 422, 'kind'],
  ['kind an array', text('kind', ['text']), 422, 'kind'],
  ['kind with a NUL', text('kind', 'text\u0000'), 422, 'kind'],
  ['kind null (the default)', text('kind', null), 201, { kind: 'text' }],
  ['kind file without a token', text('kind', 'file'), 401, undefined, 'File pushes require authentication.'],
  ['files given without a token', push({ files: ['x'] }), 401, undefined, 'File pushes require authentication.'],
  ['files not a list, without a token', text('files', 'x'), 401, undefined, 'File pushes require authentication.'],

  // expire_after_days (1..90) and expire_after_views (1..100)
  ...(['expire_after_days', 'expire_after_views'] as const).flatMap((field): Case[] => [
    [`${field} negative`, text(field, -1), 422, field],
    [`${field} zero`, text(field, 0), 422, field],
    [`${field} float 1.5`, text(field, 1.5), 422, field],
    [`${field} 1e308`, rawField(field, '1e308'), 422, field],
    [`${field} 99999999999999999999`, rawField(field, '99999999999999999999'), 422, field],
    [`${field} "99999999999999999999"`, text(field, '99999999999999999999'), 422, field],
    [`${field} "abc"`, text(field, 'abc'), 422, field],
    [`${field} "1.5"`, text(field, '1.5'), 422, field],
    [`${field} "0x10"`, text(field, '0x10'), 422, field],
    [`${field} "5" (accepted)`, text(field, '5'), 201, { [field]: 5 }],
    [`${field} true`, text(field, true), 422, field],
    [`${field} an array`, text(field, [5]), 422, field],
    [`${field} an object`, text(field, { value: 5 }), 422, field],
    [`${field} null (the default)`, text(field, null), 201, { [field]: field === 'expire_after_days' ? 7 : 5 }],
  ]),
  ['expire_after_days 91 (over the max)', text('expire_after_days', 91), 422, 'expire_after_days', 'Expire after days must be between 1 and 90.'],
  ['expire_after_views 101 (over the max)', text('expire_after_views', 101), 422, 'expire_after_views', 'Expire after views must be between 1 and 100.'],

  // Booleans
  ...(['deletable_by_viewer', 'retrieval_step'] as const).flatMap((field): Case[] => [
    [`${field} "maybe"`, text(field, 'maybe'), 422, field],
    [`${field} 2`, text(field, 2), 422, field],
    [`${field} []`, text(field, []), 422, field],
    [`${field} {}`, text(field, {}), 422, field],
    [`${field} "yes" (accepted)`, text(field, 'yes'), 201, { [field]: true }],
    [`${field} "0" (accepted)`, text(field, '0'), 201, { [field]: false }],
    [`${field} "on" (accepted)`, text(field, 'on'), 201, { [field]: true }],
  ]),

  // url and qr pushes
  ['url javascript:', push({ kind: 'url', payload: 'javascript:alert(1)' }), 422, 'payload'],
  ['url data:', push({ kind: 'url', payload: 'data:text/html,<script>alert(1)</script>' }), 422, 'payload'],
  ['url ftp:', push({ kind: 'url', payload: 'ftp://x' }), 422, 'payload'],
  ['url not a URL', push({ kind: 'url', payload: 'not a url' }), 422, 'payload'],
  ['url protocol-relative', push({ kind: 'url', payload: '//example.com' }), 422, 'payload'],
  ['url without a host', push({ kind: 'url', payload: 'http://' }), 422, 'payload'],
  ['url file:', push({ kind: 'url', payload: 'file:///etc/passwd' }), 422, 'payload'],
  ['url missing', push({ kind: 'url' }), 422, 'payload', PAYLOAD_REQUIRED],
  ['url https (accepted)', push({ kind: 'url', payload: 'https://example.com/x' }), 201, { kind: 'url', deletable_by_viewer: null }],
  ['qr over 1,024 characters', push({ kind: 'qr', payload: 'q'.repeat(1025) }), 422, 'payload', 'Payload is too long (maximum is 1024 characters).'],
  ['qr of exactly 1,024 characters', push({ kind: 'qr', payload: 'q'.repeat(1024) }), 201, { kind: 'qr' }],

  // Prototype pollution: __proto__, constructor and prototype keys are dropped before validation,
  // so a push made only of them is empty.
  ['push.__proto__ carrying a payload', raw('{"push":{"__proto__":{"payload":"x"}}}'), 400, undefined, PUSH_MISSING],
  ['push.__proto__ carrying a kind', raw('{"push":{"payload":"x","__proto__":{"kind":"url"}}}'), 201, { kind: 'text' }],
  ['top-level __proto__ carrying push', raw('{"__proto__":{"push":{"payload":"x"}}}'), 400, undefined, PUSH_MISSING],
  ['push.constructor.prototype', raw('{"push":{"constructor":{"prototype":{"payload":"x"}}}}'), 400, undefined, PUSH_MISSING],
  ['push.constructor null beside a payload', raw('{"push":{"payload":"x","constructor":null,"prototype":1}}'), 201, { kind: 'text' }],
  ['top-level constructor.prototype', raw('{"constructor":{"prototype":{"push":{"payload":"x"}}}}'), 400, undefined, PUSH_MISSING],
  ['form push[__proto__][payload]', form('push[__proto__][payload]=x'), 400, undefined, PUSH_MISSING],
  ['form __proto__[push][payload]', form('__proto__[push][payload]=x'), 400, undefined, PUSH_MISSING],

  // Form bodies
  ['form push[payload] (accepted)', form('push[payload]=x'), 201, { kind: 'text' }],
  ['form with options (accepted)', form('push[payload]=x&push[expire_after_views]=2&push[retrieval_step]=false'), 201, { expire_after_views: 2, retrieval_step: false }],
  ['form push=x', form('push=x'), 400, undefined, PUSH_MISSING],
  ['form empty', form(''), 400, undefined, PUSH_MISSING],
  ['form push[payload][]=a&push[payload][]=b', form('push[payload][]=a&push[payload][]=b'), 422, 'payload'],
  ['form push[payload][999]=x', form('push[payload][999]=x'), 422, 'payload'],
  ['form broken percent-encoding', form('push[payload]=%E0%A4%A&%%%'), 201],
  ['form over 100 parameters', form(Array.from({ length: 150 }, (_, i) => `push[p${i}]=x`).join('&')), 413, undefined, 'Request body has too many form parameters (limit 100).'],
  ['form nested 40 deep', form(`push[payload]=x&push${'[a]'.repeat(40)}=1`), 400, undefined, 'Malformed request body: form parameters nested too deeply.'],

  // Paths and methods
  ['GET a token of 8,000 characters', call('GET', `${PUSHES}/${'a'.repeat(8000)}`), 404, undefined, 'not-found'],
  ['GET a token with %00', call('GET', `${PUSHES}/abc%00def`), 404, undefined, 'not-found'],
  ['GET a token with ..%2F', call('GET', `${PUSHES}/..%2F..%2Fversion`), 404, undefined, 'not-found'],
  ['GET a token with broken percent-encoding', call('GET', `${PUSHES}/%E0%A4%A`), 400],
  ['GET preview of a token with %00', call('GET', `${PUSHES}/abc%00def/preview`), 404, undefined, 'not-found'],
  ['DELETE a token with ..%2F', call('DELETE', `${PUSHES}/..%2F..%2Fversion`), 404, undefined, 'not-found'],
  ['GET an unknown route', call('GET', '/api/v2/nope'), 404, undefined, 'not-found'],
  ['GET an unknown API version', call('GET', '/api/v3/pushes'), 404, undefined, 'not-found'],
  ['GET an unknown top-level path', call('GET', '/nope'), 404, undefined, 'not-found'],
  ['PUT /api/v2/pushes/:token', call('PUT', `${PUSHES}/abc`), 404, undefined, 'not-found'],
  ['PATCH /api/v2/pushes/:token', call('PATCH', `${PUSHES}/abc`), 404, undefined, 'not-found'],
  ['PUT /api/v2/pushes', call('PUT', PUSHES), 404, undefined, 'not-found'],
  ['DELETE /api/v2/pushes', call('DELETE', PUSHES), 404, undefined, 'not-found'],
  ['POST /api/v2/pushes/:token', call('POST', `${PUSHES}/abc`), 404, undefined, 'not-found'],
  ['POST /api/v2/version', call('POST', '/api/v2/version'), 404, undefined, 'not-found'],

  // On an existing push (`:token` is replaced by a real token)
  ['passphrase given twice in the query', call('GET', `${PUSHES}/:token?passphrase=a&passphrase=b`), 400, undefined, 'Invalid passphrase parameter'],
  ['passphrase given twice on DELETE', call('DELETE', `${PUSHES}/:token?passphrase=a&passphrase=b`), 400, undefined, 'Invalid passphrase parameter'],
  ['PUT on a push', call('PUT', `${PUSHES}/:token`), 404, undefined, 'not-found'],
  ['PATCH on a push', call('PATCH', `${PUSHES}/:token`), 404, undefined, 'not-found'],
  ['POST on a push', call('POST', `${PUSHES}/:token`), 404, undefined, 'not-found'],
  ['a token behind ..%2F', call('GET', `${PUSHES}/..%2F:token`), 404, undefined, 'not-found'],
  ['a token followed by /..%2F..%2Fversion', call('GET', `${PUSHES}/:token/..%2F..%2Fversion`), 404, undefined, 'not-found'],
];

describe('bad input', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    const created = await send(app.baseUrl, push({ payload: 'kept', expire_after_views: 100 }));
    expect(created.status).toBe(201);
    token = created.body.url_token;
  });

  afterAll(() => app.close({ drop: true }));

  function expectAnswer(result: Result, status: number, expectation: Expectation, error?: string): void {
    // The body is part of the status assertion so that a failure shows what the server said.
    const summary = `${result.status} ${result.text.slice(0, 300)}`;
    expect({ status: result.status, summary }).toEqual({ status, summary });
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    if (status >= 400) {
      expect(result.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
      if (error !== undefined) expect(result.body.error).toBe(error);
    }
    if (status === 422) {
      const errors = result.body.errors as Record<string, unknown>;
      expect(errors).toEqual(expect.any(Object));
      for (const messages of Object.values(errors)) {
        expect(Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string')).toBe(true);
      }
      expect(Object.keys(errors)).toContain(expectation);
      expect(result.body.error).toBe((errors[expectation as string] as string[])[0]);
    } else if (status === 201) {
      expect(keysOf(result.body as object)).toEqual(OWNED_PUSH_KEYS);
      if (typeof expectation === 'object') expect(result.body).toMatchObject(expectation);
    }
  }

  it('has at least 60 cases with unique names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(cases.map(([name]) => name)).size).toBe(cases.length);
  });

  it.each(cases.map((row) => [`${row[0]} → ${row[2]}`, row] as const))('%s', async (_title, [, req, status, expectation, error]) => {
    expectAnswer(await send(app.baseUrl, { ...req, path: req.path.replace(':token', token) }), status, expectation, error);
  });

  /** A token matches byte for byte: MySQL's default collation would ignore case and trailing spaces. */
  describe('tokens are matched exactly', () => {
    let exact: string;
    const swapCase = (t: string) => [...t].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

    beforeAll(async () => {
      exact = (await send(app.baseUrl, push({ payload: 'exact' }))).body.url_token;
    });

    it.each<[string, (t: string) => string]>([
      ['in swapped case', swapCase],
      ['followed by %00', (t) => `${t}%00`],
      ['followed by a space', (t) => `${t}%20`],
    ])('GET the token %s → 404', async (_name, variant) => {
      expectAnswer(await send(app.baseUrl, call('GET', `${PUSHES}/${variant(exact)}`)), 404, undefined, 'not-found');
    });
  });

  /** Type errors (the validation pipe's) and rule errors (the service's: required, ranges) come together, one message per field. */
  describe('every invalid field at once', () => {
    const expectFaults = (result: Result, messages: Record<string, string>) => {
      expect({ status: result.status, errors: result.body.errors }).toEqual({ status: 422, errors: Object.fromEntries(Object.entries(messages).map(([f, m]) => [f, [m]])) });
      expect(result.body.error).toBe(Object.values(messages)[0]);
    };
    const pushCount = async () => Number((await app.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM pushes'))[0].n);
    let before: number;
    beforeAll(async () => {
      before = await pushCount();
    });
    const RANGES = { expire_after_days: 'Expire after days must be between 1 and 90.', expire_after_views: 'Expire after views must be between 1 and 100.' };

    it('payload required, days and views out of range: all three in one 422', async () => {
      expectFaults(await send(app.baseUrl, push({ expire_after_days: 91, expire_after_views: 0 })), { payload: PAYLOAD_REQUIRED, ...RANGES });
    });

    it('the same as a form body, and on API v1', async () => {
      expectFaults(await send(app.baseUrl, form('push[expire_after_days]=91&push[expire_after_views]=0')), { payload: PAYLOAD_REQUIRED, ...RANGES });
      const v1 = { ...json({ password: { expire_after_days: 91, expire_after_views: 0 } }), path: '/p.json' };
      expectFaults(await send(app.baseUrl, v1), { payload: PAYLOAD_REQUIRED, ...RANGES });
    });

    it('type errors beside rule errors: each field once, with its first message', async () => {
      const result = await send(app.baseUrl, push({ name: 'n'.repeat(256), retrieval_step: 'maybe', expire_after_days: 'soon', expire_after_views: 101 }));
      // The type errors first, in the order of the fields' declaration, then the rules'.
      expectFaults(result, {
        expire_after_days: 'Expire after days must be an integer.',
        retrieval_step: 'Retrieval step must be true or false.',
        name: 'Name is too long (maximum is 255 characters).',
        payload: PAYLOAD_REQUIRED,
        expire_after_views: RANGES.expire_after_views,
      });
    });

    it('a url push: its payload rule and a duration beside a range error', async () => {
      expectFaults(await send(app.baseUrl, push({ kind: 'url', payload: 'ftp://x', expire_after_duration: 99, expire_after_views: 101 })), {
        payload: 'Payload must be an absolute http or https URL.',
        expire_after_duration: expect.stringMatching(/^Expire after duration must be one of /),
        expire_after_views: RANGES.expire_after_views,
      });
    });

    it('an unknown kind stops there: the rules of no kind can be judged', async () => {
      expectFaults(await send(app.baseUrl, push({ kind: 'password', expire_after_views: 101 })), { kind: 'Kind must be one of text, file, url or qr.' });
    });

    // The fields at fault reach the service removed, with their errors: it must refuse the create all the same.
    it('none of them created anything', async () => {
      expect(await pushCount()).toBe(before);
    });
  });

  it('left no prototype polluted', () => {
    const probe = {} as Record<string, unknown>;
    expect([probe.payload, probe.push, probe.kind, probe.polluted]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('keeps serving: a normal create and retrieve work afterwards', async () => {
    const created = await send(app.baseUrl, push({ payload: 'still here', expire_after_views: 2 }));
    expect(created.status).toBe(201);
    const retrieved = await send(app.baseUrl, call('GET', `${PUSHES}/${created.body.url_token}`));
    expect(retrieved.status).toBe(200);
    expect(keysOf(retrieved.body as object)).toEqual(RETRIEVED_PUSH_KEYS);
    expect(retrieved.body).toMatchObject({ payload: 'still here', views_remaining: 1, expired: false });
    // None of the hostile requests on the kept push counted a view.
    const kept = await send(app.baseUrl, call('GET', `${PUSHES}/${token}`));
    expect(kept.body).toMatchObject({ payload: 'kept', views_remaining: 99 });
  });
});
