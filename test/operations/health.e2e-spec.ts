import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, request } from '../support/http';
import { CLI_MAIN, runNode, ServerProcess, startServer } from '../support/server-process';
import { TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TEST_MASTER_KEY, TestApp } from '../support/test-app';
import { createTestDatabase, E2E_ENGINE, TestDatabase } from '../support/test-database';

/** Operational endpoints answer fast or not at all; a hung request fails the test here. */
const ANSWER_WITHIN_MS = 15_000;

async function probe(baseUrl: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}${path}`, { headers, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('probes', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ PWP__ALLOW_ANONYMOUS: 'false' });
  });
  afterAll(() => app.close({ drop: true }));

  it('/healthz says the process serves, without touching the database', async () => {
    const live = await probe(app.baseUrl, '/healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    expect(live.headers.get('cache-control')).toBe('no-store');
  });

  it('/readyz checks the database (and not Redis, which is not configured)', async () => {
    const ready = await probe(app.baseUrl, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: { status: 'up' } } });
  });

  it('are public: no token needed with anonymous use off, and a bad token is not even checked', async () => {
    expect((await client(app.baseUrl).get('/api/v2/pushes/active')).status).toBe(401);
    for (const path of ['/healthz', '/readyz']) {
      expect((await probe(app.baseUrl, path)).status).toBe(200);
      expect((await probe(app.baseUrl, path, { authorization: 'Bearer not-a-token' })).status).toBe(200);
    }
  });
});

describe('readiness with Redis', () => {
  let app: TestApp;
  let redis: TcpProxy;

  beforeAll(async () => {
    const target = new URL(process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379');
    redis = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
    app = await startTestApp({ REDIS_URL: redis.via(target.toString()), REDIS_KEY_PREFIX: `pwpush-test-${Date.now()}:` });
  });
  afterAll(async () => {
    await app.close({ drop: true });
    await redis.close();
  });

  /** pwpush_dependency_up's value per dependency, from the app's /metrics. */
  async function dependenciesUp(): Promise<Record<string, number>> {
    const text = await (await fetch(`${app.baseUrl}/metrics`, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) })).text();
    return Object.fromEntries([...text.matchAll(/^pwpush_dependency_up\{dependency="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  }

  it('reports Redis when configured; while it is unreachable the pod stays ready, degraded, and the API keeps serving', async () => {
    expect((await probe(app.baseUrl, '/readyz')).body).toEqual({ status: 'ok', checks: { database: { status: 'up' }, redis: { status: 'up' } } });
    expect(await dependenciesUp()).toEqual({ database: 1, redis: 1 });

    await redis.cut('refuse');
    // Redis is optional (limits fall back to process memory): an outage must not take every pod
    // out of the Service. It is reported, in the body and in the metrics.
    const degraded = await probe(app.baseUrl, '/readyz');
    expect(degraded.status).toBe(200);
    expect(degraded.body).toEqual({ status: 'degraded', checks: { database: { status: 'up' }, redis: { status: 'down' } } });
    expect(await dependenciesUp()).toEqual({ database: 1, redis: 0 });
    expect((await probe(app.baseUrl, '/healthz')).status).toBe(200);
    // Counters fall back to process memory: pushes are created and retrieved as usual.
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'served without redis', passphrase: 'pw' });
    expect((await api.get(`/api/v2/pushes/${push.url_token}`, { 'x-passphrase': 'wrong' })).status).toBe(401);
    expect((await api.get(`/api/v2/pushes/${push.url_token}`, { 'x-passphrase': 'pw' })).body.payload).toBe('served without redis');

    // A Redis that stops answering (a partition) is degraded too, within the check's bound.
    await redis.restore();
    await eventually(async () => expect((await probe(app.baseUrl, '/readyz')).body.status).toBe('ok'));
    await redis.cut('blackhole');
    const stalled = await probe(app.baseUrl, '/readyz');
    expect([stalled.status, stalled.body.status]).toEqual([200, 'degraded']);

    await redis.restore();
    await eventually(async () => expect((await probe(app.baseUrl, '/readyz')).body).toEqual({ status: 'ok', checks: { database: { status: 'up' }, redis: { status: 'up' } } }));
    expect(await dependenciesUp()).toEqual({ database: 1, redis: 1 });
  });
});

/** Retries an assertion until it holds (at most ~30 s): for recovery, which takes a reconnect. */
async function eventually(assertion: () => Promise<void>, attempts = 60): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await assertion();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

// A realistic database outage needs a database server the app reaches over the network.
if (E2E_ENGINE !== 'sqlite') {
  describe(`a ${E2E_ENGINE} outage`, () => {
    const secrets = { payload: 'Outage-Payload-4c1e', passphrase: 'Outage-Pass-93ab' };
    let database: TestDatabase;
    let proxy: TcpProxy;
    let server: ServerProcess;
    let token: string;
    let urlToken: string;

    beforeAll(async () => {
      database = await createTestDatabase('migrated');
      const direct = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-outage-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
      const created = await runNode(CLI_MAIN, ['users:create', '--email', 'ops@example.com'], direct);
      token = (JSON.parse(created.stdout) as { api_token: string }).api_token;
      const target = new URL(database.url);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || (E2E_ENGINE === 'postgres' ? 5432 : 3306)) });
      server = await startServer({ ...direct, DATABASE_URL: proxy.via(database.url), DB_QUERY_TIMEOUT_MS: '1000', DB_CONNECT_TIMEOUT_MS: '1000' });
      urlToken = (await client(server.url).createPush(secrets, { authorization: `Bearer ${token}` })).url_token;
    });
    afterAll(async () => {
      await server?.stop();
      await proxy?.close();
      await database?.drop();
    });

    /**
     * Every kind of database use: an anonymous read, a write, and a token lookup. Through the
     * shared client, so the 503s are also held to openapi.json; a hang fails the test.
     */
    async function apiCalls() {
      const call = (method: string, path: string, headers: Record<string, string> = {}, json?: unknown) =>
        Promise.race([
          request(server.url, method, path, { headers, json }),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${method} ${path}: no answer within ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS).unref()),
        ]);
      return [
        await call('GET', `/api/v2/pushes/${urlToken}`, { 'x-passphrase': secrets.passphrase }),
        await call('POST', '/api/v2/pushes', {}, { push: { payload: secrets.payload } }),
        await call('GET', '/api/v2/pushes/active', { authorization: `Bearer ${token}` }),
      ];
    }

    it.each(['blackhole', 'refuse'] as const)('(%s) answers 503 within a bound, not ready but live, and recovers by itself', async (mode) => {
      await proxy.cut(mode);
      for (const result of await apiCalls()) {
        expect(result.status).toBe(503);
        expect(result.body).toEqual({ error: 'service-unavailable' });
        expect(result.headers.get('retry-after')).toBe('5');
      }
      const notReady = await probe(server.url, '/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.body).toMatchObject({ error: 'Not ready: database unreachable.', checks: { database: { status: 'down' } } });
      expect((await probe(server.url, '/healthz')).status).toBe(200);

      await proxy.restore();
      await eventually(async () => expect((await probe(server.url, '/readyz')).status).toBe(200));
      const [retrieved, created, listed] = await apiCalls();
      expect(retrieved.status).toBe(200);
      expect(retrieved.body.payload).toBe(secrets.payload);
      expect(created.status).toBe(201);
      expect(listed.status).toBe(200);
      expect(listed.body.map((push: { url_token: string }) => push.url_token)).toContain(urlToken);
    });

    it('logs the outage without secrets and without a 500', () => {
      const output = server.output();
      expect(output).toContain('Not ready: database');
      expect(output).not.toContain('"statusCode":500');
      for (const secret of [...Object.values(secrets), token, urlToken]) expect(output).not.toContain(secret);
    });
  });
}
