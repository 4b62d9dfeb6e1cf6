import { mkdtempSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../support/http';
import { startServer } from '../support/server-process';
import { TEST_MASTER_KEY } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

interface InFlight {
  /** Sends the body and resolves with the answer. */
  finish(): Promise<{ status: number; connection?: string; body: any }>;
}

/**
 * Starts a create whose headers the server has already taken in (it answered 100 Continue, so
 * the request is being handled) but whose body is still to come: a request that is certainly in
 * flight whenever the test chooses.
 */
function startCreate(port: number, body: unknown): Promise<InFlight> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req: ClientRequest = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v2/pushes',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), expect: '100-continue' },
    });
    const answer = new Promise<{ status: number; connection?: string; body: any }>((done, fail) => {
      req.once('response', (res: IncomingMessage) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, connection: res.headers.connection, body: JSON.parse(text) }));
      });
      req.once('error', fail);
    });
    req.once('error', reject);
    req.once('continue', () => resolve({ finish: () => (req.end(payload), answer) }));
  });
}

/** Resolves once a fresh TCP connection to the port is refused (bounded: at most ~10 s). */
async function refusedSoon(port: number): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('accepted');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    if (outcome !== 'accepted') return outcome;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'still accepting';
}

describe('graceful shutdown on SIGTERM', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('migrated');
  });
  afterAll(() => database.drop());

  it('refuses new connections, finishes every in-flight request with its normal answer, closes and exits 0', async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-stop-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
    const server = await startServer({ ...env, SHUTDOWN_TIMEOUT_MS: '30000' });
    const port = Number(new URL(server.url).port);
    // Passphrases make each create hash with Argon2 after its body arrives, i.e. during the drain.
    const inFlight = await Promise.all(Array.from({ length: 12 }, (_, i) => startCreate(port, { push: { payload: `in flight ${i}`, passphrase: `pass ${i}` } })));

    const exited = server.stop('SIGTERM');
    expect(await refusedSoon(port)).toBe('ECONNREFUSED');
    const answers = await Promise.all(inFlight.map((request) => request.finish()));
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(201));
    // Their connections close after the answer instead of idling until the keep-alive timeout.
    expect(answers.map((answer) => answer.connection)).toEqual(Array(12).fill('close'));
    expect(await exited).toBe(0);
    expect(server.output()).toContain('Shutting down');

    // What was answered was also stored.
    const again = await startServer(env);
    const api = client(again.url);
    for (const [i, answer] of answers.entries()) {
      expect((await api.get(`/api/v2/pushes/${answer.body.url_token}`, { 'x-passphrase': `pass ${i}` })).body.payload).toBe(`in flight ${i}`);
    }
    expect(await again.stop()).toBe(0);
  });
});
