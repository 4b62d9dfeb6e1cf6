import { DAY_MS } from '@app/common';
import { ExpirySweepService } from '@app/pushes';
import { ApiClient, client } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

const MINUTE = 60_000;

describe('expiry sweep and retention', () => {
  let app: TestApp;
  let api: ApiClient;
  const sweep = () => app.service(ExpirySweepService).sweep();
  const row = async (token: string) =>
    (await app.query('SELECT expired, expired_on, payload, passphrase_hash, deleted FROM pushes WHERE url_token = ?', [token]))[0] as
      | { expired: number | boolean; expired_on: string | number | null; payload: Buffer | null; passphrase_hash: string | null; deleted: number | boolean }
      | undefined;

  beforeEach(async () => {
    app = await startTestApp({ EXPIRY_SWEEP_BATCH_SIZE: '7', PWP__PURGE_AFTER: '30 days' });
    api = client(app.baseUrl);
  });
  afterEach(() => app.close({ drop: true }));

  it('leaves a 1-day push active at 23 h 59 min and expires it at 24 h, destroying the secret', async () => {
    const { url_token } = await api.createPush({ payload: 'boundary', passphrase: 'pw', expire_after_days: 1 });
    app.clock.advance(DAY_MS - MINUTE);
    expect(await sweep()).toMatchObject({ ran: true, expired: 0 });
    expect(Number((await row(url_token))!.expired)).toBe(0);

    app.clock.advance(MINUTE);
    expect(await sweep()).toMatchObject({ ran: true, expired: 1 });
    const after = (await row(url_token))!;
    expect(Number(after.expired)).toBe(1);
    expect(Math.abs(Number(after.expired_on) - app.clock.now())).toBeLessThan(5_000);
    expect(after.payload).toBeNull();
    expect(after.passphrase_hash).toBeNull();
    expect(Number(after.deleted)).toBe(0);
    const retrieved = await api.get(`/api/v2/pushes/${url_token}`);
    expect(retrieved.body).toMatchObject({ expired: true, payload: null, days_remaining: 0 });
  });

  it('expires every elapsed push in batches and touches no active one', async () => {
    const elapsed = await Promise.all(Array.from({ length: 50 }, (_, i) => api.createPush({ payload: `old-${i}`, expire_after_days: 1 })));
    const active = await Promise.all(Array.from({ length: 5 }, (_, i) => api.createPush({ payload: `new-${i}`, expire_after_days: 3 })));
    app.clock.advance(DAY_MS);
    expect(await sweep()).toMatchObject({ ran: true, expired: 50 });
    expect(await sweep()).toMatchObject({ ran: true, expired: 0 });
    for (const push of elapsed) expect(Number((await row(push.url_token))!.expired)).toBe(1);
    for (const [i, push] of active.entries()) {
      const retrieved = await api.get(`/api/v2/pushes/${push.url_token}`);
      expect(retrieved.body).toMatchObject({ expired: false, payload: `new-${i}` });
    }
  });

  it('purges pushes that expired longer ago than PWP__PURGE_AFTER, with their audit entries', async () => {
    const gone = await api.createPush({ payload: 'x' });
    await api.delete(`/api/v2/pushes/${gone.url_token}`);
    const kept = await api.createPush({ payload: 'y', expire_after_days: 90 });
    const auditRows = async () => Number((await app.query('SELECT COUNT(*) AS n FROM audit_entries'))[0].n);
    expect(await auditRows()).toBe(3);

    app.clock.advance(29 * DAY_MS);
    expect(await sweep()).toMatchObject({ purged: 0 });
    expect((await api.get(`/api/v2/pushes/${gone.url_token}`)).status).toBe(200);

    app.clock.advance(2 * DAY_MS);
    expect(await sweep()).toMatchObject({ purged: 1, expired: 0 });
    expect(await api.get(`/api/v2/pushes/${gone.url_token}`)).toMatchObject({ status: 404, body: { error: 'not-found' } });
    expect(await row(gone.url_token)).toBeUndefined();
    expect((await api.get(`/api/v2/pushes/${kept.url_token}`)).body.payload).toBe('y');
    // Only the kept push's entries remain: its creation and the view just made.
    expect(await auditRows()).toBe(2);
  });
});

describe('lifetimes under a day (expire_after_duration 0 to 5)', () => {
  let app: TestApp;
  let api: ApiClient;
  const sweep = () => app.service(ExpirySweepService).sweep();
  const lifetimeOf = (push: Record<string, unknown>) => Date.parse(push.expires_at as string) - Date.parse(push.created_at as string);

  beforeAll(async () => {
    app = await startTestApp();
    api = client(app.baseUrl);
  });
  afterAll(() => app.close({ drop: true }));

  it.each([
    [0, 15 * MINUTE],
    [1, 30 * MINUTE],
    [2, 45 * MINUTE],
    [3, 60 * MINUTE],
    [4, 360 * MINUTE],
    [5, 720 * MINUTE],
  ])('duration %i keeps its exact lifetime, and reports it as 1 day', async (duration, lifetime) => {
    const push = await api.createPush({ payload: 'short', expire_after_duration: duration });
    expect(lifetimeOf(push)).toBe(lifetime);
    expect(push).toMatchObject({ expire_after_days: 1, days_remaining: 1 });
  });

  it('serves a 15-minute push at minute 14 and has it expired at minute 16, lazily', async () => {
    const push = await api.createPush({ payload: 'quarter', expire_after_duration: 0, expire_after_views: 5 });
    app.clock.advance(14 * MINUTE);
    expect((await api.get(`/api/v2/pushes/${push.url_token}`)).body).toMatchObject({ expired: false, payload: 'quarter', days_remaining: 1 });
    app.clock.advance(2 * MINUTE);
    expect((await api.get(`/api/v2/pushes/${push.url_token}`)).body).toMatchObject({ expired: true, payload: null, days_remaining: 0 });
  });

  it("tells the recipient's page how many minutes are left, not a day", async () => {
    const push = await api.createPush({ payload: 'page', expire_after_duration: 1 });
    const page = async () => (await (await fetch(`${app.baseUrl}/p/${push.url_token}/r`)).text()).match(/expires in ([^.<]+)\./)?.[1];
    expect(await page()).toBe('30 minutes');
    app.clock.advance(29 * MINUTE + 30_000);
    expect(await page()).toBe('1 minute');
  });

  it('has the sweep expire a 15-minute push at minute 16 and not at minute 14', async () => {
    const push = await api.createPush({ payload: 'swept', expire_after_duration: 0 });
    const expired = async () => Number((await app.query('SELECT expired FROM pushes WHERE url_token = ?', [push.url_token]))[0].expired);
    app.clock.advance(14 * MINUTE);
    await sweep();
    expect(await expired()).toBe(0);
    app.clock.advance(2 * MINUTE);
    expect(await sweep()).toMatchObject({ ran: true });
    expect(await expired()).toBe(1);
    expect((await app.query('SELECT payload FROM pushes WHERE url_token = ?', [push.url_token]))[0].payload).toBeNull();
  });

  it('is turned off by PWP__ALLOW_SUBDAY_EXPIRY=false: 422 naming the whole-day choices', async () => {
    const strict = await startTestApp({ PWP__ALLOW_SUBDAY_EXPIRY: 'false' });
    try {
      const { status, body } = await client(strict.baseUrl).post('/api/v2/pushes', { push: { payload: 'x', expire_after_duration: 0 } });
      expect(status).toBe(422);
      expect(body.errors.expire_after_duration).toEqual([
        'Expire after duration must be one of 6 = 1 day, 7 = 2 days, 8 = 3 days, 9 = 4 days, 10 = 5 days, 11 = 6 days, 12 = 7 days, ' +
          '13 = 14 days, 14 = 21 days, 15 = 30 days, 16 = 60 days, 17 = 90 days.',
      ]);
      expect((await client(strict.baseUrl).createPush({ payload: 'x', expire_after_duration: 6 })).expire_after_days).toBe(1);
    } finally {
      await strict.close({ drop: true });
    }
  });

  it('refuses an expire_after_days that disagrees, naming the lifetime', async () => {
    const { status, body } = await api.post('/api/v2/pushes', { push: { payload: 'x', expire_after_duration: 4, expire_after_days: 2 } });
    expect(status).toBe(422);
    expect(body.error).toBe('Expire after duration 4 means 6 hours, but expire after days is 2: send one of them.');
  });
});

describe('without PWP__PURGE_AFTER', () => {
  it('keeps expired pushes for good', async () => {
    const app = await startTestApp();
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'x' });
    await api.delete(`/api/v2/pushes/${push.url_token}`);
    app.clock.advance(3650 * DAY_MS);
    expect(await app.service(ExpirySweepService).sweep()).toMatchObject({ purged: 0 });
    expect((await api.get(`/api/v2/pushes/${push.url_token}`)).body).toMatchObject({ expired: true, deleted: true });
    await app.close({ drop: true });
  });
});
