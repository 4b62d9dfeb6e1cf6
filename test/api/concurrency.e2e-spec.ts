import { client } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

describe('concurrent retrievals', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close({ drop: true }));

  it.each([1, 3])('return the payload exactly %i time(s) out of 40 simultaneous requests', async (views) => {
    const api = client(app.baseUrl);
    const { url_token } = await api.createPush({ payload: `race-${views}`, expire_after_views: views });

    const results = await Promise.all(Array.from({ length: 40 }, () => api.get(`/api/v2/pushes/${url_token}`)));

    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    const served = results.filter((r) => r.body.payload === `race-${views}`);
    expect(served).toHaveLength(views);
    // Each served view saw a distinct count; none of them claims a view that did not happen.
    expect(served.map((r) => r.body.views_remaining).sort()).toEqual(Array.from({ length: views }, (_, i) => i));
    expect(results.filter((r) => r.body.payload === null && r.body.expired === true)).toHaveLength(40 - views);

    const audit: { kind: string; n: number }[] = await app.query(
      'SELECT a.kind AS kind, COUNT(*) AS n FROM audit_entries a JOIN pushes p ON p.id = a.push_id WHERE p.url_token = ? GROUP BY a.kind ORDER BY a.kind',
      [url_token],
    );
    expect(audit.map((row) => [row.kind, Number(row.n)])).toEqual([
      ['creation', 1],
      ['failed_view', 40 - views],
      ['view', views],
    ]);
  });

  it('passphrase-protected pushes hold the same guarantee', async () => {
    const api = client(app.baseUrl);
    const { url_token } = await api.createPush({ payload: 'guarded-race', passphrase: 'pw', expire_after_views: 2 });
    const results = await Promise.all(Array.from({ length: 20 }, () => api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': 'pw' })));
    expect(results.filter((r) => r.body.payload === 'guarded-race')).toHaveLength(2);
  });
});
