import { randomBytes } from 'node:crypto';
import { client } from '../support/http';
import { startReplicas } from '../support/replicas';
import { ServerProcess } from '../support/server-process';
import { TestDatabase } from '../support/test-database';

/**
 * Three real server processes on one fresh MySQL or PostgreSQL database, started together on an empty schema,
 * each running the expiry sweep every second. Nothing that keeps a secret correct may depend on
 * there being one process.
 */
describe('three replicas on one database', () => {
  let database: TestDatabase;
  let servers: ServerProcess[];
  let turn = 0;
  /** Round-robin over the replicas. */
  const next = () => client(servers[turn++ % servers.length].url);
  const sql = <T>(query: string, params: unknown[] = []): Promise<T> => database.sql(query, params) as Promise<T>;
  const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  const logs = () => servers.map((server) => server.output()).join('\n');

  beforeAll(async () => {
    ({ database, servers } = await startReplicas({
      EXPIRY_SWEEP_INTERVAL_SECONDS: '1',
      EXPIRY_SWEEP_BATCH_SIZE: '500',
      PWP__THROTTLING__MINUTE: '1000000',
      PWP__THROTTLING__SECOND: '1000000',
    }));
  });

  afterAll(async () => {
    await Promise.all((servers ?? []).map((server) => server.stop()));
    await database?.drop();
  });

  it('migrated the empty schema exactly once although all three started together', async () => {
    expect(servers.filter((server) => /Applied \d+ migration\(s\)/.test(server.output()))).toHaveLength(1);
    const [{ n }] = await sql<{ n: number }[]>('SELECT COUNT(*) AS n FROM migrations');
    const applied = /Applied (\d+) migration/.exec(logs())![1];
    expect(Number(n)).toBe(Number(applied));
  });

  it.each([1, 3])('serves a push with %i view(s) left exactly that often to 60 simultaneous retrievals across the replicas', async (views) => {
    const { url_token } = await next().createPush({ payload: `multi-${views}`, expire_after_views: views });
    const results = await Promise.all(Array.from({ length: 60 }, () => next().get(`/api/v2/pushes/${url_token}`)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.payload === `multi-${views}`)).toHaveLength(views);
    const [row] = await sql<{ view_count: number; expired: number | boolean; payload: Buffer | null }[]>(
      'SELECT view_count, expired, payload FROM pushes WHERE url_token = ?',
      [url_token],
    );
    expect({ ...row, expired: Number(row.expired) }).toMatchObject({ view_count: views, expired: 1, payload: null });
  });

  it('sweeps 10,000 elapsed pushes exactly once with all three sweeps running, touching no active push', async () => {
    const active = await Promise.all(Array.from({ length: 30 }, (_, i) => next().createPush({ payload: `still-here-${i}` })));
    const elapsedAt = Date.now() - 60_000;
    for (let batch = 0; batch < 10; batch++) {
      const rows = Array.from({ length: 1000 }, () => {
        const token = `bulk_${randomBytes(16).toString('base64url')}`;
        return [token, 'text', randomBytes(48), 7, 5, 0, 1, 1, 0, 0, 0, elapsedAt, elapsedAt - 7 * 86_400_000, elapsedAt - 7 * 86_400_000, 1];
      });
      await sql(
        `INSERT INTO pushes (url_token, kind, payload, expire_after_days, expire_after_views, view_count, deletable_by_viewer,
           retrieval_step, expired, deleted, passphrase_protected, expires_at, created_at, updated_at, audit_entry_count)
         VALUES ${rows.map((row) => `(${placeholders(row.length)})`).join(', ')}`,
        rows.flat(),
      );
    }

    const deadline = Date.now() + 60_000;
    let remaining = -1;
    while (Date.now() < deadline) {
      [{ remaining }] = await sql<{ remaining: number }[]>("SELECT COUNT(*) AS remaining FROM pushes WHERE url_token LIKE 'bulk\\_%' AND expired = FALSE");
      if (Number(remaining) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(Number(remaining)).toBe(0);
    // Give the sweeps that were mid-round a moment to log their totals.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const [{ wiped }] = await sql<{ wiped: number }[]>(
      "SELECT COUNT(*) AS wiped FROM pushes WHERE url_token LIKE 'bulk\\_%' AND expired = TRUE AND payload IS NULL AND expired_on IS NOT NULL",
    );
    expect(Number(wiped)).toBe(10_000);
    const swept = [...logs().matchAll(/Expiry sweep: expired (\d+) push/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    expect(swept).toBe(10_000);
    expect(logs()).not.toMatch(/deadlock|ER_LOCK|"level":50|Expiry sweep failed/i);

    for (const [i, push] of active.entries()) {
      expect((await next().get(`/api/v2/pushes/${push.url_token}`)).body).toMatchObject({ expired: false, payload: `still-here-${i}` });
    }
  });

  it('never serves a payload after a push was seen expired, while retrievals race the sweep at the boundary', async () => {
    const pushes = await Promise.all(Array.from({ length: 10 }, (_, i) => next().createPush({ payload: `edge-${i}`, expire_after_views: 100 })));
    const boundary = Date.now() + 1500;
    await sql(`UPDATE pushes SET expires_at = ? WHERE url_token IN (${placeholders(pushes.length)})`, [boundary, ...pushes.map((p) => p.url_token)]);

    const observations: { token: string; sentAt: number; receivedAt: number; payload: boolean; expired: boolean }[] = [];
    const stopAt = boundary + 2500;
    await Promise.all(
      pushes.map(async ({ url_token }) => {
        while (Date.now() < stopAt) {
          const sentAt = Date.now();
          const wave = await Promise.all(Array.from({ length: 3 }, () => next().get(`/api/v2/pushes/${url_token}`)));
          const receivedAt = Date.now();
          for (const r of wave) observations.push({ token: url_token, sentAt, receivedAt, payload: r.body.payload !== null, expired: r.body.expired === true });
        }
      }),
    );

    for (const { url_token } of pushes) {
      const mine = observations.filter((o) => o.token === url_token);
      const firstSeenExpired = Math.min(...mine.filter((o) => o.expired).map((o) => o.receivedAt));
      expect(Number.isFinite(firstSeenExpired)).toBe(true);
      expect(mine.filter((o) => o.payload && o.sentAt > firstSeenExpired)).toEqual([]);
      const [row] = await sql<{ view_count: number; expired: number | boolean }[]>('SELECT view_count, expired FROM pushes WHERE url_token = ?', [url_token]);
      expect(Number(row.expired)).toBe(1);
      expect(mine.filter((o) => o.payload)).toHaveLength(Number(row.view_count));
    }
    expect(logs()).not.toMatch(/deadlock|ER_LOCK|"level":50/i);
  });
});
