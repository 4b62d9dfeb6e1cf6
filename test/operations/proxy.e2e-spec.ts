import { client } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Behind a proxy or ingress (docs/operations.md, "Behind a proxy or ingress"): which peers' X-Forwarded-*
 * headers are believed (TRUST_PROXY, the reference's PWP__TRUSTED_PROXIES), and FORCE_SSL. Every
 * request here comes from 127.0.0.1, standing in for the ingress controller.
 */

const auditIpOf = async (app: TestApp, urlToken: string) =>
  (
    await app.query<{ ip: string }>('SELECT a.ip FROM audit_entries a JOIN pushes p ON p.id = a.push_id WHERE p.url_token = ?', [urlToken])
  )[0].ip;

describe('trusted proxies', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close({ drop: true });
    app = undefined;
  });

  it('believes the proxies in PWP__TRUSTED_PROXIES: the client in the audit log and the rate limits, the scheme and host in links', async () => {
    app = await startTestApp({ PWP__TRUSTED_PROXIES: '10.0.0.0/8 127.0.0.0/8', PWP__THROTTLING__MINUTE: '3' });
    const api = client(app.baseUrl);
    const via = (clientIp: string) => ({
      'x-forwarded-for': clientIp,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'pwpush.example.com',
    });
    const push = await api.createPush({ payload: 'behind the ingress' }, via('203.0.113.21'));
    expect(push.html_url).toBe(`https://pwpush.example.com/p/${push.url_token}/r`);
    expect(await auditIpOf(app, push.url_token)).toBe('203.0.113.21');

    // Each client has its own budget: one noisy client does not use up everyone's.
    expect((await api.get(`/api/v2/pushes/${push.url_token}/preview`, via('203.0.113.21'))).status).toBe(200);
    expect((await api.get(`/api/v2/pushes/${push.url_token}/preview`, via('203.0.113.21'))).status).toBe(200);
    expect((await api.get(`/api/v2/pushes/${push.url_token}/preview`, via('203.0.113.21'))).status).toBe(429);
    expect((await api.get(`/api/v2/pushes/${push.url_token}/preview`, via('203.0.113.22'))).status).toBe(200);
  });

  it.each([['0.0.0.0/0'], ['::/0']])('starts with TRUST_PROXY=%s and believes every peer', async (ranges) => {
    app = await startTestApp({ TRUST_PROXY: ranges });
    const push = await client(app.baseUrl).createPush(
      { payload: 'x' },
      { 'x-forwarded-for': '198.51.100.4', 'x-forwarded-proto': 'https' },
    );
    expect(push.html_url).toMatch(/^https:\/\//);
    expect(await auditIpOf(app, push.url_token)).toBe('198.51.100.4');
  });
});

describe('FORCE_SSL', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ FORCE_SSL: 'true', TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => app.close({ drop: true }));

  const send = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    fetch(`${app.baseUrl}${path}`, { redirect: 'manual', ...init });

  it('redirects a GET or HEAD that came over plain http to the same URL over https', async () => {
    const headers = { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'pwpush.example.com' };
    for (const method of ['GET', 'HEAD']) {
      const response = await send('/p/SomeToken123/r?locale=en', { method, headers });
      expect([response.status, response.headers.get('location')]).toEqual([301, 'https://pwpush.example.com/p/SomeToken123/r?locale=en']);
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('refuses anything else over plain http without acting on it, and without repeating the URL', async () => {
    const response = await send('/api/v2/pushes?passphrase=Query-Secret-1', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ push: { payload: 'sent in clear' } }),
    });
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: 'HTTPS is required: send this request over https.' });
    expect(text).not.toContain('Query-Secret-1');
    expect(await app.query('SELECT id FROM pushes')).toEqual([]);
  });

  it('serves what came over https through the trusted proxy, with HSTS', async () => {
    const push = await client(app.baseUrl).createPush({ payload: 'over https' }, { 'x-forwarded-proto': 'https' });
    expect(push.html_url).toMatch(/^https:\/\//);
    const page = await send(`/p/${push.url_token}/r`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
  });

  it('leaves the probes and /metrics on plain http, where the kubelet and Prometheus call them', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) expect([path, (await send(path)).status]).toEqual([path, 200]);
  });

  it('believes X-Forwarded-Proto only from a trusted proxy', async () => {
    const elsewhere = await startTestApp({ FORCE_SSL: 'true', TRUST_PROXY: '10.0.0.0/8' }, app.database);
    try {
      const response = await fetch(`${elsewhere.baseUrl}/api/v2/version`, {
        redirect: 'manual',
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(response.status).toBe(301);
    } finally {
      await elsewhere.close();
    }
  });
});
