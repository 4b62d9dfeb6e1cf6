import { client } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

const ROBOTS = 'noindex, nofollow';

describe('response headers', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ PWP__THROTTLING__MINUTE: '1000', PWP__THROTTLING__SECOND: '1000' });
  });
  afterAll(() => app.close({ drop: true }));

  it('carry X-Robots-Tag and helmet security headers on every kind of answer', async () => {
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'headers' });
    const answers = [
      await api.get('/api/v2/version'),
      await api.get(`/api/v2/pushes/${push.url_token}`),
      await api.get('/api/v2/nowhere'),
      await api.raw('POST', '/api/v2/pushes', { body: '{"push":', headers: { 'content-type': 'application/json' } }),
      await api.post('/api/v2/pushes', { push: { payload: '' } }),
      await api.get('/api/v2/pushes/active', { authorization: 'Bearer revoked-or-made-up' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404, 400, 422, 401]);
    for (const answer of [...answers, await fetch(`${app.baseUrl}/healthz`), await fetch(`${app.baseUrl}/metrics`)]) {
      expect(answer.headers.get('x-robots-tag')).toBe(ROBOTS);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(answer.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(answer.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('keep Swagger UI working: scripts from self and inline styles allowed, no https upgrade of its assets', async () => {
    const docs = await fetch(`${app.baseUrl}/api-docs`);
    const csp = docs.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/style-src 'self' [^;]*'unsafe-inline'/);
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(docs.headers.get('x-robots-tag')).toBe(ROBOTS);
    // Everything else keeps helmet's default policy, upgrade included.
    expect((await fetch(`${app.baseUrl}/api/v2/version`)).headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
  });

  it('mark every answer of the push routes Cache-Control: no-store, errors included', async () => {
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'not for caches', passphrase: 'right' });
    const path = `/api/v2/pushes/${push.url_token}`;
    const answers = [
      await api.get(path, { 'x-passphrase': 'right' }),
      await api.get('/api/v2/pushes/unknown-token'),
      await api.get(path),
      await api.get(path, { authorization: 'Bearer made-up' }),
      await api.get(`${path}?passphrase=a&passphrase=b`),
      await api.get(`${path}/preview`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401, 401, 400, 200]);
    for (const answer of answers) expect(answer.headers.get('cache-control')).toBe('no-store');
    for (let i = 0; i < 4; i++) await api.get(path);
    const locked = await api.get(path, { 'x-passphrase': 'right' });
    expect(locked.status).toBe(429);
    expect(locked.headers.get('cache-control')).toBe('no-store');
  });

  it('send no CORS headers unless CORS_ORIGINS allows the origin', async () => {
    const simple = await fetch(`${app.baseUrl}/api/v2/version`, { headers: { origin: 'https://app.example.com' } });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${app.baseUrl}/api/v2/pushes`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });
});

describe('CORS with CORS_ORIGINS', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ CORS_ORIGINS: 'https://app.example.com, https://tools.example.org/' });
  });
  afterAll(() => app.close({ drop: true }));

  it('answers preflights and requests from the listed origins only', async () => {
    for (const origin of ['https://app.example.com', 'https://tools.example.org']) {
      const preflight = await fetch(`${app.baseUrl}/api/v2/pushes`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, x-passphrase' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-passphrase');
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
      const actual = await fetch(`${app.baseUrl}/api/v2/version`, { headers: { origin } });
      expect(actual.headers.get('access-control-allow-origin')).toBe(origin);
      expect(actual.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    }
    const stranger = await fetch(`${app.baseUrl}/api/v2/version`, { headers: { origin: 'https://evil.example.net' } });
    expect(stranger.status).toBe(200);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });
});
