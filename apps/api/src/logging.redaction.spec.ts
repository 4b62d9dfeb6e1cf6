import { Writable } from 'node:stream';
import pino from 'pino';
import { LOG_SAFETY } from './logging.module';

const SECRET = 'Secret-7a1c-Gharial';

/** A logger with the app's serializers and censor, writing into a string. */
function capture(): { sut: pino.Logger; output: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { sut: pino(LOG_SAFETY, sink), output: () => text };
}

describe('log redaction', () => {
  it.each([
    ['the Authorization header', { req: { headers: { authorization: `Bearer ${SECRET}` } } }],
    ['the X-User-Token header', { req: { headers: { 'x-user-token': SECRET } } }],
    ['the passphrase query parameter', { req: { query: { passphrase: SECRET }, url: `/api/v2/pushes/abc?passphrase=${SECRET}` } }],
    ['a request body', { req: { body: { push: { payload: SECRET } } } }],
    ['a response body', { res: { statusCode: 200, body: { payload: SECRET } } }],
  ])('keeps only safe fields of %s (the request and response serializers)', (_name, entry) => {
    const { sut, output } = capture();
    sut.info(entry, 'entry');
    expect(output()).not.toContain(SECRET);
  });

  it.each([
    ['a top-level payload', { payload: SECRET }],
    ['a nested note', { push: { note: SECRET } }],
    ['a deeply nested passphrase', { a: { b: { c: { passphrase: SECRET } } } }],
    ['an API token', { user: { api_token: SECRET } }],
    ['a url_token', { push: { url_token: SECRET } }],
    ['headers logged under another name', { request: { headers: { authorization: SECRET, cookie: SECRET, 'x-passphrase': SECRET } } }],
    ['a passphrase inside an array', { attempts: [{ passphrase: SECRET }] }],
    ["a driver error's SQL and parameters", { error: { parameters: [SECRET], driverError: { sql: SECRET } } }],
    ['anything nested deeper than the censor looks', { a: { b: { c: { d: { e: { f: { g: SECRET } } } } } } }],
  ])('censors %s', (_name, entry) => {
    const { sut, output } = capture();
    sut.info(entry, 'entry');
    expect(output()).toContain('[redacted]');
    expect(output()).not.toContain(SECRET);
  });

  it('leaves everything else as it was, without touching the logged object', () => {
    const { sut, output } = capture();
    const entry = { push: { id: 7, kind: 'text', note: SECRET }, durationMs: 12, tags: ['a', 'b'] };
    sut.info(entry, 'entry');
    expect(JSON.parse(output())).toMatchObject({ msg: 'entry', durationMs: 12, tags: ['a', 'b'], push: { id: 7, kind: 'text', note: '[redacted]' } });
    expect(entry.push.note).toBe(SECRET);
  });

  it('logs requests by id, method and masked URL, and responses by status', () => {
    const { sut, output } = capture();
    sut.info({ req: { id: 'r-1', method: 'GET', url: `/api/v2/pushes/${SECRET}?passphrase=x`, headers: {} }, res: { statusCode: 200 } }, 'done');
    expect(JSON.parse(output())).toMatchObject({ req: { id: 'r-1', method: 'GET', url: '/api/v2/pushes/:url_token' }, res: { statusCode: 200 } });
  });

  it('logs errors by type and code only: messages can quote bodies and SQL parameters', () => {
    const { sut, output } = capture();
    const error = Object.assign(new Error(`Duplicate entry '${SECRET}' for key 'url_token'`), { code: 'ER_DUP_ENTRY', sql: `INSERT ... '${SECRET}'` });
    sut.error({ err: error }, 'failed');
    expect(JSON.parse(output())).toMatchObject({ err: { type: 'Error', code: 'ER_DUP_ENTRY' } });
    expect(output()).not.toContain(SECRET);
  });
});
