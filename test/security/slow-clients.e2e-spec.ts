import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A slow client holds a connection only as long as the settings allow: its headers for
 * HTTP_HEADERS_TIMEOUT_MS, a body read into memory for HTTP_REQUEST_TIMEOUT_MS (in total, however
 * it trickles), a multipart upload as long as it keeps moving (a pause of HTTP_REQUEST_TIMEOUT_MS
 * ends it). The timeouts here are small so that the tests are quick; nothing here measures time:
 * each test waits for the server to close the connection, which before these settings took 80 s
 * (headers) and 320 s (bodies), beyond the test's own timeout.
 */

// Far above what these tests need with the settings below, far below what slow clients got before.
jest.setTimeout(20_000);

const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1_000;
/** Far below the request timeout: a client that sends this often is making progress. */
const STEADY_MS = 100;

interface Connection {
  socket: Socket;
  /** Everything the server sent, once it has closed the connection. */
  closed: Promise<string>;
}

function open(baseUrl: string): Connection {
  const { port } = new URL(baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (data: Buffer) => (received += data.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, closed };
}

/** Writes `next()` every STEADY_MS until the server closes the connection (or `next` has nothing more). */
function trickle(connection: Connection, next: () => string | Buffer | undefined): void {
  const timer = setInterval(() => {
    const chunk = next();
    if (chunk === undefined || connection.socket.destroyed) return clearInterval(timer);
    connection.socket.write(chunk);
  }, STEADY_MS);
  void connection.closed.then(() => clearInterval(timer));
}

const JSON_HEAD = (length: number, more = '') =>
  `POST /api/v2/pushes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${more}\r\n`;
const BODY_TIMEOUT = `{"error":"Request timeout: the body did not arrive within ${REQUEST_TIMEOUT_MS} ms."}`;

describe('slow clients', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp({
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000',
    });
    token = await app.createUser('slow@example.com');
  });
  afterAll(() => app.close({ drop: true }));

  it('closes a connection whose headers never end, with a 408, even while header lines keep coming', async () => {
    const connection = open(app.baseUrl);
    connection.socket.write('POST /api/v2/pushes HTTP/1.1\r\nHost: localhost\r\n');
    let line = 0;
    trickle(connection, () => `X-Slow-${line++}: ${'x'.repeat(10)}\r\n`);
    expect(await connection.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('answers a JSON body that stops halfway with a 408 and closes the connection', async () => {
    const connection = open(app.baseUrl);
    connection.socket.write(`${JSON_HEAD(100)}{"push":`);
    const received = await connection.closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
    expect(received.endsWith(BODY_TIMEOUT)).toBe(true);
  });

  it('answers a JSON body that trickles on past the timeout with a 408: bodies read into memory have it in total', async () => {
    const connection = open(app.baseUrl);
    connection.socket.write(`${JSON_HEAD(10_000)}{"push":{"payload":"`);
    trickle(connection, () => 'x');
    const received = await connection.closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received.endsWith(BODY_TIMEOUT)).toBe(true);
  });

  it('closes a connection whose body trickles on after its answer (a bogus token: 401, the body never read)', async () => {
    const connection = open(app.baseUrl);
    connection.socket.write(JSON_HEAD(10_000, 'Authorization: Bearer bogus\r\n'));
    trickle(connection, () => 'x');
    expect(await connection.closed).toMatch(/^HTTP\/1\.1 401 /);
  });

  describe('a multipart upload', () => {
    const boundary = 'slow-upload';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="push[expire_after_views]"\r\n\r\n1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="push[files][]"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const chunks = Array.from({ length: 25 }, () => randomBytes(1024));
    const length = Buffer.byteLength(head) + chunks.length * 1024 + Buffer.byteLength(tail);
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) };

    it('may take longer than the timeout while it keeps sending', async () => {
      const req = httpRequest(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` } });
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        req.once('response', (res) => {
          let body = '';
          res.on('data', (data: Buffer) => (body += data.toString()));
          res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.once('error', reject);
      });
      req.write(head);
      // 25 chunks, one every 100 ms: about 2.5 s in all, over twice the 1 s timeout.
      const pending = [...chunks];
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const chunk = pending.shift();
          if (chunk !== undefined) return void req.write(chunk);
          clearInterval(timer);
          req.end(tail);
          resolve();
        }, STEADY_MS);
      });
      const { status, body } = await answer;
      expect({ status, kind: (JSON.parse(body) as { kind?: string }).kind }).toEqual({ status: 201, kind: 'file' });
    });

    it('is cut off when it pauses longer than the timeout', async () => {
      const connection = open(app.baseUrl);
      const lines = Object.entries({ ...headers, authorization: `Bearer ${token}` }).map(([name, value]) => `${name}: ${value}\r\n`);
      connection.socket.write(`POST /api/v2/pushes HTTP/1.1\r\nHost: localhost\r\n${lines.join('')}\r\n${head}`);
      connection.socket.write(chunks[0]);
      // Closed without an answer: the upload stopped, so there is nobody to answer.
      expect(await connection.closed).toBe('');
    });
  });

  it('keeps an idle connection HTTP_KEEP_ALIVE_TIMEOUT_MS, and says so', async () => {
    const keepAlive = await new Promise<string | undefined>((resolve, reject) => {
      httpRequest(`${app.baseUrl}/api/v2/version`, (res) => {
        res.resume();
        resolve(res.headers['keep-alive'] as string | undefined);
      })
        .once('error', reject)
        .end();
    });
    expect(keepAlive).toBe('timeout=2');
  });
});
