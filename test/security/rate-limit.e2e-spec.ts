import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../support/http';
import { ServerProcess, startServer } from '../support/server-process';
import { startTestApp, TEST_MASTER_KEY, TestApp } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/** The machine's Redis (shared: every test uses keys of its own). */
const REDIS_URL = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Every test gets keys of its own on the shared Redis. */
const freshPrefix = () => `pwpush-test-${randomBytes(6).toString('hex')}:`;
const unknownPreview = '/api/v2/pushes/does-not-exist/preview';

describe('rate limits in one process', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ PWP__THROTTLING__MINUTE: '10', PWP__THROTTLING__SECOND: '1000', TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => app.close({ drop: true }));

  /** Each test is a different client behind the trusted proxy, with its own budget. */
  const clientIp = (() => {
    let next = 1;
    return () => ({ 'x-forwarded-for': `203.0.113.${next++}` });
  })();

  it('allows PWP__THROTTLING__MINUTE requests per client across routes, then answers 429 JSON with Retry-After', async () => {
    const api = client(app.baseUrl);
    const ip = clientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.get(unknownPreview, ip)).status);
    for (let i = 0; i < 5; i++) statuses.push((await api.post('/api/v2/pushes', { push: { payload: 'p' } }, ip)).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404, 201, 201, 201, 201, 201]);

    const limited = await api.get(unknownPreview, ip);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Rate limit exceeded. Try again later.' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await api.post('/api/v2/pushes', { push: { payload: 'p' } }, ip)).status).toBe(429);
  });

  it('counts clients separately, by the address the trusted proxy forwards', async () => {
    const api = client(app.baseUrl);
    const first = clientIp();
    for (let i = 0; i < 10; i++) await api.get(unknownPreview, first);
    expect((await api.get(unknownPreview, first)).status).toBe(429);
    expect((await api.get(unknownPreview, clientIp())).status).toBe(404);
  });

  it('counts IPv6 clients per /64: addresses of one network share a budget, another network has its own', async () => {
    const api = client(app.baseUrl);
    const host = (suffix: string) => ({ 'x-forwarded-for': `2001:db8:7:1::${suffix}` });
    for (let i = 1; i <= 10; i++) expect((await api.get(unknownPreview, host(i.toString(16)))).status).toBe(404);
    expect((await api.get(unknownPreview, host('ffff'))).status).toBe(429);
    expect((await api.get(unknownPreview, { 'x-forwarded-for': '2001:db8:7:2::1' })).status).toBe(404);
  });

  it('does not limit the version, health, readiness and metrics endpoints', async () => {
    const api = client(app.baseUrl);
    const ip = clientIp();
    for (let i = 0; i < 11; i++) await api.get(unknownPreview, ip);
    expect((await api.get(unknownPreview, ip)).status).toBe(429);
    for (const path of ['/api/v2/version', '/healthz', '/readyz', '/metrics']) {
      for (let i = 0; i < 12; i++) expect((await fetch(`${app.baseUrl}${path}`, { headers: ip })).status).toBe(200);
    }
  });
});

describe('the per-second limit', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ PWP__THROTTLING__MINUTE: '1000', PWP__THROTTLING__SECOND: '3' });
  });
  afterAll(() => app.close({ drop: true }));

  it('applies to a burst (and X-Forwarded-For from an untrusted peer changes nothing)', async () => {
    const api = client(app.baseUrl);
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => api.get(unknownPreview, { 'x-forwarded-for': `198.51.100.${i}` })));
    const statuses = burst.map((result) => result.status).sort();
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((status) => status === 404).length).toBeLessThanOrEqual(3);
  });
});

describe('rate limits and passphrase lockouts shared through Redis by two processes', () => {
  let database: TestDatabase;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('migrated');
  });
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    servers = [];
  });
  afterAll(() => database.drop());

  /** Replicas on one database and one Redis namespace; started one after the other so SQLite migrates once. */
  async function replicas(count: number, env: Record<string, string>): Promise<ServerProcess[]> {
    const shared = {
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-rl-')),
      PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
      REDIS_URL,
      REDIS_KEY_PREFIX: freshPrefix(),
      ...env,
    };
    for (let i = 0; i < count; i++) servers.push(await startServer(shared));
    return servers;
  }

  it('limit 10/minute: 6 requests to each replica, the 11th and 12th get 429', async () => {
    const [a, b] = await replicas(2, { PWP__THROTTLING__MINUTE: '10', PWP__THROTTLING__SECOND: '1000' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await client(a.url).get(unknownPreview)).status);
      statuses.push((await client(b.url).get(unknownPreview)).status);
    }
    expect(statuses).toEqual([...Array(10).fill(404), 429, 429]);
  });

  it('a passphrase lockout earned on one replica holds on the other', async () => {
    const [a, b] = await replicas(2, {});
    const push = await client(a.url).createPush({ payload: 'shared lockout', passphrase: 'right' });
    const path = `/api/v2/pushes/${push.url_token}`;
    for (const server of [a, b, a, b, a]) expect((await client(server.url).get(path, { 'x-passphrase': 'wrong' })).status).toBe(401);

    for (const server of [b, a]) {
      const locked = await client(server.url).get(path, { 'x-passphrase': 'right' });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('starts and serves with Redis unreachable: ready but degraded, counting per process, never a 500', async () => {
    const [a] = await replicas(1, { REDIS_URL: 'redis://127.0.0.1:1', PWP__THROTTLING__MINUTE: '5', PWP__THROTTLING__SECOND: '1000' });
    const ready = await fetch(`${a.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'degraded', checks: { database: { status: 'up' }, redis: { status: 'down' } } });
    const api = client(a.url);
    const push = await api.createPush({ payload: 'no redis', passphrase: 'right' });
    expect((await api.get(`/api/v2/pushes/${push.url_token}`, { 'x-passphrase': 'right' })).body.payload).toBe('no redis');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.get(unknownPreview)).status);
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect(a.output()).toContain('Redis is unreachable');
  });
});
