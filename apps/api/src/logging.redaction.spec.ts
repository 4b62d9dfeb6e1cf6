import { Writable } from 'node:stream';
import pino from 'pino';
import { REDACT_PATHS, serializeError } from './logging.module';

const SECRET = 'Secret-7a1c-Gharial';

/** A logger with the app's redaction and error serializer, writing into a string. */
function capture(): { sut: pino.Logger; output: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { sut: pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { err: serializeError } }, sink), output: () => text };
}

describe('log redaction', () => {
  it.each([
    ['the Authorization header', { req: { headers: { authorization: `Bearer ${SECRET}` } } }],
    ['the X-User-Token header', { req: { headers: { 'x-user-token': SECRET } } }],
    ['the X-Passphrase header', { req: { headers: { 'x-passphrase': SECRET } } }],
    ['a cookie', { req: { headers: { cookie: `s=${SECRET}` } } }],
    ['the passphrase query parameter', { req: { query: { passphrase: SECRET } } }],
    ['the access_token query parameter', { req: { query: { access_token: SECRET } } }],
    ['a request body', { req: { body: { push: { payload: SECRET } } } }],
    ['a response body', { res: { body: { payload: SECRET } } }],
    ['a top-level payload', { payload: SECRET }],
    ['a nested note', { push: { note: SECRET } }],
    ['a deeply nested passphrase', { a: { b: { c: { passphrase: SECRET } } } }],
    ['an API token', { user: { api_token: SECRET } }],
    ['a url_token', { push: { url_token: SECRET } }],
    ["a driver error's SQL parameters", { error: { parameters: [SECRET], driverError: { sql: SECRET } } }],
  ])('removes %s', (_name, entry) => {
    const { sut, output } = capture();
    sut.info(entry, 'entry');
    expect(output()).toContain('[redacted]');
    expect(output()).not.toContain(SECRET);
  });

  it('logs errors by type and code only: messages can quote bodies and SQL parameters', () => {
    const { sut, output } = capture();
    const error = Object.assign(new Error(`Duplicate entry '${SECRET}' for key 'url_token'`), { code: 'ER_DUP_ENTRY', sql: `INSERT ... '${SECRET}'` });
    sut.error({ err: error }, 'failed');
    expect(JSON.parse(output())).toMatchObject({ err: { type: 'Error', code: 'ER_DUP_ENTRY' } });
    expect(output()).not.toContain(SECRET);
  });
});
