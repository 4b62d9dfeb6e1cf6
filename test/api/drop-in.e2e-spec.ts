import { DAY_MS } from '@app/common';
import { ApiClient, client, request } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Drop-in compatibility with the reference (Password Pusher 2.11.4) and its official CLI
 * (pwpush-cli 0.16): its defaults, its empty strings, its durations, strict query parameters, and
 * authentication before anything else for file pushes.
 */

const PUSHES = '/api/v2/pushes';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const daysOf = (push: { created_at: string; expires_at: string }) => (Date.parse(push.expires_at) - Date.parse(push.created_at)) / DAY_MS;

/** POST /api/v2/pushes as multipart/form-data with these `push[...]` fields (and optional file parts). */
async function postMultipart(
  baseUrl: string,
  fields: Record<string, string>,
  options: { files?: string[]; headers?: Record<string, string> } = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(`push[${name}]`, value);
  for (const name of options.files ?? []) form.append('push[files][]', new Blob([`contents of ${name}`]), name);
  const response = await fetch(`${baseUrl}${PUSHES}`, { method: 'POST', body: form, headers: options.headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

describe('drop-in compatibility', () => {
  let app: TestApp;
  let api: ApiClient;
  let token: string;

  beforeAll(async () => {
    // No PWP__ENABLE_* settings: the kinds have their defaults.
    app = await startTestApp({ PWP__ENABLE_URL_PUSHES: undefined, PWP__ENABLE_QR_PUSHES: undefined, PWP__ENABLE_FILE_PUSHES: undefined });
    api = client(app.baseUrl);
    token = await app.createUser('owner@example.com');
  });
  afterAll(() => app.close({ drop: true }));

  describe('URL and QR pushes are on by default, as in the reference', () => {
    it('creates them on an instance with no PWP__ENABLE_* settings, and says so in the version', async () => {
      expect(app.settings.kinds.url.enabled && app.settings.kinds.qr.enabled).toBe(true);
      expect(await api.createPush({ kind: 'url', payload: 'https://example.com/' })).toMatchObject({ kind: 'url' });
      expect(await api.createPush({ kind: 'qr', payload: 'WIFI:S:guest;;' })).toMatchObject({ kind: 'qr' });
      const { body } = await api.get('/api/v2/version');
      expect(body.features.pushes).toMatchObject({ url_pushes: { enabled: true }, qr_code_pushes: { enabled: true } });
    });
  });

  describe('name and note are "" when not given, never null', () => {
    it('in the create answer, anonymous or owned', async () => {
      expect(await api.createPush({ payload: 'x' })).toMatchObject({ name: '', note: '' });
      expect(await api.createPush({ payload: 'x', name: null, note: null }, bearer(token))).toMatchObject({ name: '', note: '' });
      expect(await api.createPush({ payload: 'x', name: 'label', note: 'kept' }, bearer(token))).toMatchObject({
        name: 'label',
        note: 'kept',
      });
    });

    it('in the active and expired lists', async () => {
      const plain = await api.createPush({ payload: 'listed' }, bearer(token));
      const active = (await api.get(`${PUSHES}/active`, bearer(token))).body as Record<string, unknown>[];
      expect(active.find((push) => push.url_token === plain.url_token)).toMatchObject({ name: '', note: '' });
      await api.delete(`${PUSHES}/${plain.url_token}`, bearer(token));
      const expired = (await api.get(`${PUSHES}/expired`, bearer(token))).body as Record<string, unknown>[];
      expect(expired.find((push) => push.url_token === plain.url_token)).toMatchObject({ name: '', note: '' });
    });
  });

  describe('expire_after_duration, as the official CLI sends it', () => {
    it.each([
      [6, 1],
      [7, 2],
      [8, 3],
      [9, 4],
      [10, 5],
      [11, 6],
      [12, 7],
      [13, 14],
      [14, 21],
      [15, 30],
      [16, 60],
      [17, 90],
    ])('duration %i gives a %i-day push', async (duration, days) => {
      const push = await api.createPush({ payload: 'x', expire_after_duration: duration });
      expect(push.expire_after_days).toBe(days);
      expect(daysOf(push as never)).toBe(days);
    });

    it('is read from form and multipart bodies too', async () => {
      const form = await request(app.baseUrl, 'POST', PUSHES, {
        body: 'push[payload]=x&push[expire_after_duration]=7',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form).toMatchObject({ status: 201, body: { expire_after_days: 2 } });
      const multipart = await postMultipart(app.baseUrl, { payload: 'x', expire_after_duration: '15' });
      expect(multipart).toMatchObject({ status: 201, body: { expire_after_days: 30 } });
    });

    it('agrees with an equal expire_after_days, and refuses a different one', async () => {
      expect(await api.createPush({ payload: 'x', expire_after_duration: 13, expire_after_days: 14 })).toMatchObject({
        expire_after_days: 14,
      });
      const { status, body } = await api.post(PUSHES, { push: { payload: 'x', expire_after_duration: 13, expire_after_days: 3 } });
      expect(status).toBe(422);
      expect(Object.keys(body.errors)).toEqual(['expire_after_duration']);
      expect(body.error).toBe('Expire after duration 13 means 14 days, but expire after days is 3: send one of them.');
    });

    it.each([18, -7, 100])('refuses duration %i with 422, naming the accepted values', async (duration) => {
      const { status, body } = await api.post(PUSHES, { push: { payload: 'x', expire_after_duration: duration } });
      expect(status).toBe(422);
      expect(Object.keys(body.errors)).toEqual(['expire_after_duration']);
      expect(body.error).toBe(
        'Expire after duration must be one of 0 = 15 minutes, 1 = 30 minutes, 2 = 45 minutes, 3 = 1 hour, 4 = 6 hours, 5 = 12 hours, ' +
          '6 = 1 day, 7 = 2 days, 8 = 3 days, 9 = 4 days, 10 = 5 days, 11 = 6 days, 12 = 7 days, ' +
          '13 = 14 days, 14 = 21 days, 15 = 30 days, 16 = 60 days, 17 = 90 days.',
      );
    });

    it('refuses a duration that is not an integer', async () => {
      const { status, body } = await api.post(PUSHES, { push: { payload: 'x', expire_after_duration: 'a week' } });
      expect(status).toBe(422);
      expect(body.errors).toEqual({ expire_after_duration: ['Expire after duration must be an integer.'] });
    });
  });

  describe('query parameters are scalars', () => {
    it.each(['page[]=1', 'page[a]=1', 'page=1&page[]=2'])('answers 400 for %s on the lists and the audit log', async (query) => {
      const push = await api.createPush({ payload: 'x' }, bearer(token));
      for (const path of [`${PUSHES}/active`, `${PUSHES}/expired`, `${PUSHES}/${push.url_token}/audit`]) {
        const answer = await api.get(`${path}?${query}`, bearer(token));
        expect([path, answer.status, answer.body]).toEqual([path, 400, { error: 'Invalid page parameter' }]);
      }
    });

    it.each(['passphrase[]=x', 'passphrase[a]=x'])('answers 400 for %s on retrieve and delete, counting no view', async (query) => {
      const push = await api.createPush({ payload: 'kept', passphrase: 'x', expire_after_views: 3 });
      const retrieved = await api.get(`${PUSHES}/${push.url_token}?${query}`);
      expect([retrieved.status, retrieved.body]).toEqual([400, { error: 'Invalid passphrase parameter' }]);
      const deleted = await api.delete(`${PUSHES}/${push.url_token}?${query}`);
      expect([deleted.status, deleted.body]).toEqual([400, { error: 'Invalid passphrase parameter' }]);
      expect((await api.get(`${PUSHES}/${push.url_token}?passphrase=x`)).body).toMatchObject({ payload: 'kept', views_remaining: 2 });
    });
  });

  describe('file pushes need authentication, checked first', () => {
    const NEEDS_TOKEN = { error: 'File pushes require authentication.' };

    it.each([
      ['kind: "file"', { kind: 'file' }],
      ['a files key', { payload: 'x', files: [] }],
      ['kind: "file" and fields that would be refused', { kind: 'file', expire_after_days: 'soon', note: 7 }],
    ])('answers 401 to an anonymous JSON create with %s', async (_what, push) => {
      const { status, headers, body } = await api.post(PUSHES, { push });
      expect([status, body]).toEqual([401, NEEDS_TOKEN]);
      expect(headers.get('www-authenticate')).toBe('Bearer');
    });

    it('answers 401 to an anonymous form create with kind=file', async () => {
      const answer = await request(app.baseUrl, 'POST', PUSHES, {
        body: 'push[kind]=file&push[expire_after_views]=2',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect([answer.status, answer.body]).toEqual([401, NEEDS_TOKEN]);
    });

    it('answers 401 to an anonymous multipart create with a file part', async () => {
      const answer = await postMultipart(app.baseUrl, { payload: '', kind: 'file' }, { files: ['a.txt'] });
      expect([answer.status, answer.body]).toEqual([401, NEEDS_TOKEN]);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    });
  });
});

// Its own app, after the first has closed: passport's strategies are registered process-wide.
describe("expire_after_duration within the kind's day range", () => {
  let narrow: TestApp;
  beforeAll(async () => {
    narrow = await startTestApp({ PWP__PW__EXPIRE_AFTER_DAYS_MAX: '30', PWP__URL__EXPIRE_AFTER_DAYS_MIN: '3' });
  });
  afterAll(() => narrow.close({ drop: true }));

  it('refuses days outside the range with 422 and accepts those inside', async () => {
    const narrowApi = client(narrow.baseUrl);
    expect(await narrowApi.createPush({ payload: 'x', expire_after_duration: 15 })).toMatchObject({ expire_after_days: 30 });
    const tooLong = await narrowApi.post(PUSHES, { push: { payload: 'x', expire_after_duration: 16 } });
    expect(tooLong).toMatchObject({
      status: 422,
      body: { error: 'Expire after duration 16 (60 days) is outside the allowed 1 to 30 days.' },
    });
    const tooShort = await narrowApi.post(PUSHES, { push: { kind: 'url', payload: 'https://example.com/', expire_after_duration: 7 } });
    expect(tooShort).toMatchObject({
      status: 422,
      body: { errors: { expire_after_duration: ['Expire after duration 7 (2 days) is outside the allowed 3 to 90 days.'] } },
    });
  });
});
