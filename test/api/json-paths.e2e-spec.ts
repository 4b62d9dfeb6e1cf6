import { client, type ApiClient } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

/** Every /api/v2 route with a `.json` suffix answers exactly as without it (spec "`.json` paths"). */

const PUSHES = '/api/v2/pushes';
/** What differs between two answers to the same request, whatever the path: times and ids. */
const VOLATILE = new Set(['created_at', 'updated_at', 'expired_on', 'expires_at']);
const stable = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(stable)
    : typeof value === 'object' && value !== null
      ? Object.fromEntries(Object.entries(value).map(([key, child]) => [key, VOLATILE.has(key) ? typeof child : stable(child)]))
      : value;

describe('.json on every /api/v2 path', () => {
  let app: TestApp;
  let api: ApiClient;
  let owner: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    api = client(app.baseUrl);
    owner = { authorization: `Bearer ${await app.createUser('json@example.com')}` };
  });
  afterAll(() => app.close({ drop: true }));

  it('GET /api/v2/version.json is the version endpoint, as clients detecting the API call it', async () => {
    const [plain, suffixed] = await Promise.all([api.get('/api/v2/version'), api.get('/api/v2/version.json')]);
    expect(suffixed.status).toBe(200);
    expect(suffixed.body).toEqual(plain.body);
    expect(suffixed.body.api_version).toBe('2.1');
  });

  it('POST /api/v2/pushes.json creates, and the push answers on every route with and without .json alike', async () => {
    const created = await api.post(`${PUSHES}.json`, { push: { payload: 'suffixed', expire_after_views: 10, name: 'json' } }, owner);
    expect(created).toMatchObject({ status: 201, body: { name: 'json', views_remaining: 10 } });
    expect(created.body).not.toHaveProperty('payload');
    const token = created.body.url_token as string;
    for (const path of [`${PUSHES}/${token}/preview`, `${PUSHES}/${token}/audit`, `${PUSHES}/active`, `${PUSHES}/expired`]) {
      const [plain, suffixed] = [await api.get(path, owner), await api.get(`${path}.json`, owner)];
      expect([path, suffixed.status, stable(suffixed.body)]).toEqual([path, plain.status, stable(plain.body)]);
    }
    const viewed = await api.get(`${PUSHES}/${token}.json`);
    expect(viewed).toMatchObject({ status: 200, body: { payload: 'suffixed', views_remaining: 9 } });
    expect(viewed.headers.get('cache-control')).toBe('no-store');
    // The audit page through .json lists the view just made through .json.
    expect((await api.get(`${PUSHES}/${token}/audit.json`, owner)).body.logs.map((entry: { kind: string }) => entry.kind)).toEqual(['creation', 'view']);
    expect(await api.delete(`${PUSHES}/${token}.json`, owner)).toMatchObject({ status: 200, body: { expired: true, deleted: true } });
    expect((await api.get(`${PUSHES}/${token}`)).body).toMatchObject({ expired: true, payload: null });
  });

  it('applies the same guards through .json: a token is needed, a bad one is refused, a query stays a query', async () => {
    expect((await api.get(`${PUSHES}/active.json`)).status).toBe(401);
    expect((await api.get(`${PUSHES}/active.json`, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect(await api.get(`${PUSHES}/active.json?page=0`, owner)).toMatchObject({ status: 400, body: { error: 'Invalid page parameter' } });
    const guarded = await api.createPush({ payload: 'guarded', passphrase: 'pw' });
    expect(await api.get(`${PUSHES}/${guarded.url_token}.json?passphrase=pw`)).toMatchObject({ status: 200, body: { payload: 'guarded' } });
  });

  it.each(['accounts', 'workspaces'])('/api/v2/%s, with or without .json, is a 404 (paid editions only)', async (name) => {
    for (const path of [`/api/v2/${name}`, `/api/v2/${name}.json`]) {
      expect([path, (await api.get(path, owner)).status]).toEqual([path, 404]);
    }
  });

  it('answers /api/v2/requests, ours (secret requests), with or without .json', async () => {
    for (const path of ['/api/v2/requests', '/api/v2/requests.json']) {
      expect([path, (await api.post(path, { request: { request: 'the key, please' } }, owner)).status]).toEqual([path, 201]);
      // A list is by state (active, open, ready, closed): the collection itself has no GET.
      expect([path, (await api.get(path, owner)).status]).toEqual([path, 404]);
    }
    expect((await api.get('/api/v2/requests/open.json', owner)).body).toHaveLength(2);
  });

  it('leaves download links alone: a .json there names no file', async () => {
    const form = new FormData();
    form.append('push[files][]', new Blob([Buffer.from('file bytes')]), 'a.txt');
    const created = (await (await fetch(`${app.baseUrl}${PUSHES}`, { method: 'POST', body: form, headers: owner })).json()) as { url_token: string };
    const [file] = (await api.get(`${PUSHES}/${created.url_token}`)).body.files as { url: string }[];
    expect((await fetch(file.url)).status).toBe(200);
    expect((await fetch(`${file.url}.json`)).status).toBe(404);
  });
});
