import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { UsersService } from '@app/auth';
import { DAY_MS } from '@app/common';
import { MetricsServer } from '@app/metrics';
import { ExpirySweepService, PushExpiry } from '@app/pushes';
import { client } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, as far as these tests need it. */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

async function scrape(app: TestApp, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(`${app.baseUrl}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
  return parse(await response.text());
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

/** Any method, even ones fetch refuses to send, on a fresh connection. */
function send(baseUrl: string, method: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(`${baseUrl}${path}`, { method, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

describe('/metrics', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close({ drop: true }));

  it('serves process metrics and labels request durations by route template, method and status class', async () => {
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'counted' });
    await api.get(`/api/v2/pushes/${push.url_token}`);
    await api.get('/api/v2/nowhere');
    const samples = await scrape(app);
    expect(valueOf(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'nodejs_eventloop_lag_seconds')).toBeDefined();
    const count = (labels: Record<string, string>) => valueOf(samples, 'http_request_duration_seconds_count', labels);
    expect(count({ route: '/api/v2/pushes', method: 'POST', status_class: '2xx' })).toBe(1);
    expect(count({ route: '/api/v2/pushes/:url_token', method: 'GET', status_class: '2xx' })).toBe(1);
    expect(count({ route: 'unmatched', method: 'GET', status_class: '4xx' })).toBe(1);
    // No label value anywhere carries a token.
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes(push.url_token)))).toBe(false);
  });

  it('keeps the duration histogram to a small, fixed set of series under 1,000 requests to random paths and methods', async () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'MKCOL', 'PURGE', 'LOCK', 'SEARCH'];
    const paths = () => {
      const noise = randomBytes(6).toString('hex');
      const choices = [`/${noise}`, `/api/v2/pushes/${noise}`, `/api/v2/pushes/${noise}/preview`, `/api/v2/pushes/${noise}/audit`, `/api/v2/${noise}/x/y`, `/api-x-${noise}?q=${noise}`];
      return choices[Math.floor(Math.random() * choices.length)];
    };
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(Array.from({ length: 50 }, () => send(app.baseUrl, methods[Math.floor(Math.random() * methods.length)], paths())));
    }
    const series = (await scrape(app)).filter((s) => s.name === 'http_request_duration_seconds_count');
    const total = series.reduce((sum, s) => sum + s.value, 0);
    expect(total).toBeGreaterThanOrEqual(1000);
    // Routes that exist plus `unmatched`, times the seven methods and OTHER, times a few status classes
    // at most; in practice far fewer. Without the route template this would be ~1,000.
    expect(series.length).toBeLessThanOrEqual(40);
    for (const s of series) {
      expect(s.labels.route === 'unmatched' || s.labels.route.startsWith('/')).toBe(true);
      expect(s.labels.route).not.toMatch(/[0-9a-f]{12}/);
      expect(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER']).toContain(s.labels.method);
      expect(s.labels.status_class).toMatch(/^[1-5]xx$/);
    }
  });

  it('counts pushes, retrievals by outcome, passphrase failures, expiries by reason and sweep runs', async () => {
    const api = client(app.baseUrl);
    const before = await scrape(app);
    const delta = (after: Sample[], name: string, labels: Record<string, string> = {}) => (valueOf(after, name, labels) ?? 0) - (valueOf(before, name, labels) ?? 0);

    const owner = await app.createUser(`metrics-${randomBytes(3).toString('hex')}@example.com`);
    const auth = { authorization: `Bearer ${owner}` };
    const once = await api.createPush({ payload: 'one view', expire_after_views: 1 });
    await api.createPush({ kind: 'url', payload: 'https://example.com/' });
    const locked = await api.createPush({ payload: 'locked', passphrase: 'right' });
    const owned = await api.createPush({ kind: 'qr', payload: 'qr text' }, auth);
    const deleted = await api.createPush({ payload: 'to delete' });
    const elapsing = await api.createPush({ payload: 'elapses', expire_after_days: 1 });
    const swept = await api.createPush({ payload: 'swept', expire_after_days: 1 });
    const userPush = await api.createPush({ payload: "the user's", expire_after_days: 2 }, auth);

    expect((await api.get(`/api/v2/pushes/${once.url_token}`)).status).toBe(200); // viewed, expires: views
    expect((await api.get(`/api/v2/pushes/${once.url_token}`)).body.expired).toBe(true); // expired
    expect((await api.get(`/api/v2/pushes/${owned.url_token}`, auth)).status).toBe(200); // owner_view
    expect((await api.get('/api/v2/pushes/unknown-token')).status).toBe(404); // not_found
    for (let i = 0; i < 5; i++) expect((await api.get(`/api/v2/pushes/${locked.url_token}`, { 'x-passphrase': 'wrong' })).status).toBe(401);
    expect((await api.get(`/api/v2/pushes/${locked.url_token}`, { 'x-passphrase': 'right' })).status).toBe(429); // rate_limited
    expect((await api.delete(`/api/v2/pushes/${deleted.url_token}`)).status).toBe(200); // deleted
    app.clock.advance(DAY_MS + 1000);
    expect((await api.get(`/api/v2/pushes/${elapsing.url_token}`)).body.expired).toBe(true); // expired, expires: days
    const sweep = await app.service(ExpirySweepService).sweep();
    expect(sweep.expired).toBeGreaterThanOrEqual(1);
    expect((await api.get(`/api/v2/pushes/${swept.url_token}`)).body.expired).toBe(true);
    // The user's two active pushes (the QR one and this one), as when the user is deleted.
    expect(await app.service(PushExpiry).expireAllOwnedBy(await userIdOf(app, owner))).toBe(2); // user_deleted
    expect((await api.get(`/api/v2/pushes/${userPush.url_token}`)).body.expired).toBe(true);

    const after = await scrape(app);
    expect(delta(after, 'pwpush_pushes_created_total', { kind: 'text' })).toBe(6);
    expect(delta(after, 'pwpush_pushes_created_total', { kind: 'url' })).toBe(1);
    expect(delta(after, 'pwpush_pushes_created_total', { kind: 'qr' })).toBe(1);
    expect(delta(after, 'pwpush_retrievals_total', { outcome: 'viewed' })).toBe(1);
    expect(delta(after, 'pwpush_retrievals_total', { outcome: 'owner_view' })).toBe(1);
    expect(delta(after, 'pwpush_retrievals_total', { outcome: 'expired' })).toBe(4);
    expect(delta(after, 'pwpush_retrievals_total', { outcome: 'not_found' })).toBe(1);
    expect(delta(after, 'pwpush_retrievals_total', { outcome: 'passphrase_failed' })).toBe(5);
    expect(delta(after, 'pwpush_retrievals_total', { outcome: 'rate_limited' })).toBe(1);
    expect(delta(after, 'pwpush_passphrase_failures_total')).toBe(5);
    expect(delta(after, 'pwpush_expiries_total', { reason: 'views' })).toBe(1);
    expect(delta(after, 'pwpush_expiries_total', { reason: 'deleted' })).toBe(1);
    expect(delta(after, 'pwpush_expiries_total', { reason: 'days' })).toBe(1);
    expect(delta(after, 'pwpush_expiries_total', { reason: 'sweep' })).toBe(sweep.expired);
    expect(delta(after, 'pwpush_expiries_total', { reason: 'user_deleted' })).toBe(2);
    expect(delta(after, 'pwpush_sweep_runs_total', { result: 'completed' })).toBe(1);
    expect(delta(after, 'pwpush_sweep_duration_seconds_count')).toBe(1);
  });
});

/** The user id behind an API token, through the service the guard uses. */
async function userIdOf(app: TestApp, token: string): Promise<number> {
  const user = await app.service(UsersService).authenticate(token);
  if (!user) throw new Error('token did not authenticate');
  return user.id;
}

describe('/metrics with METRICS_TOKEN', () => {
  let app: TestApp;
  const token = 'metrics-token-0123456789abcdef';

  beforeAll(async () => {
    app = await startTestApp({ METRICS_TOKEN: token });
  });
  afterAll(() => app.close({ drop: true }));

  it('needs Authorization: Bearer <METRICS_TOKEN>; API tokens and wrong tokens get 401 JSON', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong' }, { authorization: token }, { authorization: `Bearer ${token}x` }];
    for (const headers of attempts) {
      const response = await fetch(`${app.baseUrl}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual({ error: 'Metrics require Authorization: Bearer <METRICS_TOKEN>.' });
    }
    const ok = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('pwpush_pushes_created_total');
  });
});

describe('/metrics on METRICS_PORT', () => {
  let app: TestApp;
  const token = 'metrics-port-token-0123456789';
  let metricsUrl: string;

  beforeAll(async () => {
    // 0: a port the system picks, as the tests run side by side.
    app = await startTestApp({ METRICS_PORT: '0', METRICS_TOKEN: token });
    metricsUrl = `http://127.0.0.1:${app.service(MetricsServer).port}`;
  });
  afterAll(() => app.close({ drop: true }));

  it('serves the metrics on their own port, with METRICS_TOKEN, and nothing else there', async () => {
    await client(app.baseUrl).createPush({ payload: 'counted' });
    const ok = await fetch(`${metricsUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect([ok.status, ok.headers.get('content-type'), ok.headers.get('cache-control')]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8', 'no-store']);
    const samples = parse(await ok.text());
    expect(valueOf(samples, 'pwpush_pushes_created_total', { kind: 'text' })).toBe(1);
    expect(valueOf(samples, 'http_request_duration_seconds_count', { route: '/api/v2/pushes', method: 'POST', status_class: '2xx' })).toBe(1);
    expect(valueOf(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);

    const refused = await fetch(`${metricsUrl}/metrics`, { headers: { authorization: 'Bearer wrong' } });
    expect([refused.status, refused.headers.get('www-authenticate'), await refused.json()]).toEqual([401, 'Bearer', { error: 'Metrics require Authorization: Bearer <METRICS_TOKEN>.' }]);
    for (const path of ['/', '/api/v2/version', '/healthz', '/metrics/x']) expect([path, (await fetch(`${metricsUrl}${path}`)).status]).toEqual([path, 404]);
  });

  it('answers /metrics on the service port with 404, like any unknown path (what an ingress routes there)', async () => {
    const response = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect([response.status, await response.json()]).toEqual([404, { error: 'not-found' }]);
  });

  it('stops listening when the app closes', async () => {
    const other = await startTestApp({ METRICS_PORT: '0' }, app.database);
    const port = other.service(MetricsServer).port;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    await other.close();
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
