import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { CreatePushRoutes } from '@app/pushes';
import { holdRequest } from '../support/held-request';
import { client, request } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Request bodies cannot exhaust the process's memory: compressed bodies are refused unread, a
 * body without files is at most 13 MiB, only an authenticated create's JSON may be larger (its
 * credential is checked before a byte of its body is read), and the bodies being read at once
 * share PWP__MAX_BODY_BYTES_IN_FLIGHT, beyond which a new body is a 503 with Retry-After. The load
 * test (npm run bench:body-flood) shows what this means under 100 concurrent maximum bodies.
 */

const MIB = 1024 * 1024;
const JSON_TYPE = { 'content-type': 'application/json' };
const COMPRESSED = 'Compressed request bodies are not accepted: send the body without a Content-Encoding.';
const BUSY = 'The server is reading too many request bodies at once; retry after Retry-After seconds.';

const createBody = (payload: string) => JSON.stringify({ push: { payload } });

describe('request bodies', () => {
  describe('limits', () => {
    let app: TestApp;
    let owner: Record<string, string>;

    beforeAll(async () => {
      app = await startTestApp();
      owner = { authorization: `Bearer ${await app.createUser('bodies@example.com')}` };
    });
    afterAll(() => app.close({ drop: true }));

    // 16 KB of gzip that inflate to 16 MiB: twenty of them at once killed a 256 MB heap.
    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const)('refuses a %s body with 415 and Accept-Encoding: identity, anonymous or not', async (encoding, compress) => {
      const bomb = compress(Buffer.from(createBody('x'.repeat(16 * MIB))));
      expect(bomb.length).toBeLessThan(64 * 1024);
      for (const headers of [{}, owner]) {
        const result = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: bomb, headers: { ...JSON_TYPE, 'content-encoding': encoding, ...headers } });
        expect({ status: result.status, body: result.body }).toEqual({ status: 415, body: { error: COMPRESSED } });
        expect(result.headers.get('accept-encoding')).toBe('identity');
      }
    });

    it('refuses a compressed multipart body too', async () => {
      const result = await request(app.baseUrl, 'POST', '/api/v2/pushes', {
        body: gzipSync('--b\r\nContent-Disposition: form-data; name="push[payload]"\r\n\r\nx\r\n--b--\r\n'),
        headers: { ...owner, 'content-type': 'multipart/form-data; boundary=b', 'content-encoding': 'gzip' },
      });
      expect(result.status).toBe(415);
    });

    it('refuses a body of another type with 415, naming the types in Accept-Post', async () => {
      const result = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: createBody('x'), headers: { 'content-type': 'text/plain' } });
      expect(result.status).toBe(415);
      expect(result.headers.get('accept-post')).toBe('application/json, application/x-www-form-urlencoded, multipart/form-data');
    });

    it('refuses an anonymous JSON body over 13 MiB with 413, also when it is chunked', async () => {
      const body = createBody('x'.repeat(13 * MIB));
      const declared = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body, headers: JSON_TYPE });
      expect({ status: declared.status, body: declared.body }).toEqual({ status: 413, body: { error: 'Request body is too large (limit 13MiB).' } });
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < body.length; i += MIB) controller.enqueue(Buffer.from(body.slice(i, i + MIB)));
          controller.close();
        },
      });
      const chunked = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', headers: JSON_TYPE, body: chunks, duplex: 'half' });
      expect(chunked.status).toBe(413);
    });

    it('accepts a 13 MiB body: the largest payload, every character escaped as a surrogate pair', async () => {
      const payload = '\\ud83d\\ude00'.repeat(1_048_576);
      const body = `{"push":{"payload":"${payload}"}}`;
      expect(body.length).toBeGreaterThan(12 * MIB);
      const result = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body, headers: JSON_TYPE });
      expect(result.status).toBe(201);
    });

    it('accepts an authenticated JSON create over 13 MiB, within PWP__FILES__MAX_JSON_BODY_SIZE (base64 files)', async () => {
      const file = Buffer.alloc(14 * MIB, 7);
      const result = await client(app.baseUrl).post('/api/v2/pushes', { push: { files: [{ filename: 'big.bin', data: file.toString('base64') }] } }, owner);
      expect(result.status).toBe(201);
      const retrieved = await client(app.baseUrl).get(`/api/v2/pushes/${result.body.url_token}`, owner);
      expect(retrieved.body.files).toEqual([expect.objectContaining({ filename: 'big.bin', size: file.length })]);
    });

    it("leaves that JSON to every API create route, found by its CreatesPush: v2's and v1's, not the pages' form", async () => {
      const routes = app.service(CreatePushRoutes);
      expect(['/api/v2/pushes', '/p.json', '/f.json', '/r.json'].filter((path) => routes.has(path))).toHaveLength(4);
      expect(['/p/new', '/api/v2/pushes/active', '/p/active.json'].filter((path) => routes.has(path))).toEqual([]);
    });

    it('refuses an authenticated JSON create over PWP__FILES__MAX_JSON_BODY_SIZE with 413, unread', async () => {
      const held = holdRequest(app.baseUrl, '/api/v2/pushes', { ...JSON_TYPE, ...owner, 'content-length': String(33 * MIB) });
      expect((await held.answer).body).toEqual({ error: 'Request body is too large (limit 32MiB).' });
      held.destroy();
    });

    // Before this, any Authorization header (even a bogus one) had its body read to 32 MiB before the token was checked.
    it.each([
      ['Authorization: Bearer', { authorization: 'Bearer bogus-token' }],
      ['X-User-Token', { 'x-user-email': 'nobody@example.com', 'x-user-token': 'bogus-token' }],
    ])('answers a bogus %s with 401 without reading its body', async (_name, credential) => {
      // Only 1 KiB of the 20 MiB declared is ever sent: the answer cannot have waited for the body.
      const held = holdRequest(app.baseUrl, '/api/v2/pushes', { ...JSON_TYPE, ...credential, 'content-length': String(20 * MIB) });
      held.write('{"push":{"payload":"' + 'x'.repeat(1024));
      const answer = await held.answer;
      held.destroy();
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: { error: 'Invalid or revoked API token.' } });
    });

    it('keeps serving after all that', async () => {
      expect((await client(app.baseUrl).post('/api/v2/pushes', { push: { payload: 'still here' } })).status).toBe(201);
    });
  });

  describe('the budget of body bytes being read at once', () => {
    let app: TestApp;
    let owner: Record<string, string>;
    const BUDGET = 64 * 1024;
    const heldBody = createBody('h'.repeat(60_000));
    const probe = createBody('p'.repeat(10_000));

    beforeAll(async () => {
      app = await startTestApp({ PWP__MAX_BODY_BYTES_IN_FLIGHT: String(BUDGET) });
      owner = { authorization: `Bearer ${await app.createUser('budget@example.com')}` };
    });
    afterAll(() => app.close({ drop: true }));

    /** A create whose 60 KB body is announced and half sent: it holds its share of the budget until answered. */
    async function holdBudget() {
      const held = holdRequest(app.baseUrl, '/api/v2/pushes', { ...JSON_TYPE, 'content-length': String(Buffer.byteLength(heldBody)) });
      await held.admitted;
      held.write(heldBody.slice(0, 30_000));
      return held;
    }

    it('answers a body that does not fit 503 with Retry-After, unread, and reads it once there is room', async () => {
      const held = await holdBudget();
      const refused = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: probe, headers: JSON_TYPE });
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 503, body: { error: BUSY } });
      expect(refused.headers.get('retry-after')).toBe('1');
      held.end(heldBody.slice(30_000));
      expect((await held.answer).status).toBe(201);
      expect((await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: probe, headers: JSON_TYPE })).status).toBe(201);
    });

    it('counts the fields of a multipart body, and an authenticated JSON body read after authentication', async () => {
      const held = await holdBudget();
      const form = new FormData();
      form.append('push[payload]', 'p'.repeat(10_000));
      const multipart = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: form, headers: owner });
      expect({ status: multipart.status, body: multipart.body }).toEqual({ status: 503, body: { error: BUSY } });
      const json = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: probe, headers: { ...JSON_TYPE, ...owner } });
      expect(json.status).toBe(503);
      held.end(heldBody.slice(30_000));
      expect((await held.answer).status).toBe(201);
      expect((await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: form, headers: owner })).status).toBe(201);
    });

    it('lets a body larger than the whole budget through when it is alone', async () => {
      const result = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: createBody('a'.repeat(200_000)), headers: JSON_TYPE });
      expect(result.status).toBe(201);
    });

    it('gives every share back: a body that fails (413, 400) or whose client goes away frees its room', async () => {
      const tooLarge = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: createBody('x'.repeat(13 * MIB)), headers: JSON_TYPE });
      expect(tooLarge.status).toBe(413);
      expect((await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: `{"push":${'x'.repeat(10_000)}`, headers: JSON_TYPE })).status).toBe(400);
      const gone = await holdBudget();
      gone.destroy();
      await expect(gone.answer).rejects.toThrow();
      // The server sees the connection close after the client does: its share comes back then.
      for (let attempt = 0; ; attempt++) {
        const result = await request(app.baseUrl, 'POST', '/api/v2/pushes', { body: heldBody, headers: JSON_TYPE });
        if (result.status === 201) break;
        expect(attempt).toBeLessThan(500);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  });
});
