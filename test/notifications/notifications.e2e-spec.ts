import { Webhook } from 'standardwebhooks';
import { DAY_MS } from '@app/common';
import { NotificationWorker } from '@app/notifications';
import { ExpirySweepService } from '@app/pushes';
import { ApiClient, client } from '../support/http';
import { freePort } from '../support/helpers';
import { startSilentEndpoint } from '../support/silent-endpoint';
import { startTestApp, TestApp } from '../support/test-app';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

const SECRET_PAYLOAD = 'hunter2-notification-secret';
const ALL_EVENTS = ['push.created', 'push.viewed', 'push.expired', 'push.passphrase_failed', 'push.file_downloaded'];
const MINUTE = 60_000;

describe('webhooks and owner notifications', () => {
  let app: TestApp;
  let api: ApiClient;
  let receiver: WebhookReceiver;
  let owner: Record<string, string>;
  const round = () => app.service(NotificationWorker).round();
  const events = () => receiver.received.map((hook) => JSON.parse(hook.body) as { type: string; timestamp: string; data: Record<string, unknown> });
  const outboxRows = async () => Number((await app.query('SELECT COUNT(*) AS n FROM outbox'))[0].n);

  const register = async (events = ALL_EVENTS, url = receiver.url) => {
    const created = await api.post('/api/v2/webhooks', { url, events, description: 'test receiver' }, owner);
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  };

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    app = await startTestApp({
      PWP__WEBHOOKS__ALLOW_HTTP: 'true',
      PWP__WEBHOOKS__ALLOWED_HOSTS: '127.0.0.1',
      PWP__NOTIFICATIONS__BACKOFF_SECONDS: '10',
      PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: '3600',
      PWP__WEBHOOKS__TIMEOUT_SECONDS: '2',
    });
    api = client(app.baseUrl);
    owner = { authorization: `Bearer ${await app.createUser('owner@example.com')}` };
  });
  afterEach(async () => {
    await app.close({ drop: true });
    await receiver.close();
  });

  it('delivers each event once, signed so that a Standard Webhooks verifier accepts it, and never a secret nor the full url_token', async () => {
    const { secret } = await register();
    const push = await api.createPush({ payload: SECRET_PAYLOAD, passphrase: 'open sesame', note: 'private note', name: 'Wi-Fi', expire_after_views: 2 }, owner);
    expect((await api.get(`/api/v2/pushes/${push.url_token}?passphrase=wrong`)).status).toBe(401);
    expect((await api.get(`/api/v2/pushes/${push.url_token}?passphrase=open%20sesame`)).status).toBe(200);
    expect((await api.get(`/api/v2/pushes/${push.url_token}?passphrase=open%20sesame`)).status).toBe(200);

    expect(await round()).toMatchObject({ dispatched: 5, delivered: 5, retried: 0, dead: 0 });
    expect(await round()).toMatchObject({ dispatched: 0, delivered: 0 });
    expect(events().map((event) => event.type).sort()).toEqual(['push.created', 'push.expired', 'push.passphrase_failed', 'push.viewed', 'push.viewed']);

    const verifier = new Webhook(secret);
    for (const hook of receiver.received) {
      expect(() => verifier.verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
      expect(hook.headers['content-type']).toBe('application/json');
      // The url_token opens the secret: without the owner's opt-in no body carries it.
      for (const secretText of [SECRET_PAYLOAD, 'open sesame', 'private note', push.url_token]) expect(hook.body).not.toContain(secretText);
    }
    expect(new Set(receiver.received.map((hook) => hook.headers['webhook-id'])).size).toBe(5);
    const expired = events().find((event) => event.type === 'push.expired')!;
    expect(expired.data).toEqual({ url_token_prefix: push.url_token.slice(0, 8), kind: 'text', name: 'Wi-Fi', views_remaining: 0, days_remaining: 7, expired: true, reason: 'views' });
    const viewed = events().filter((event) => event.type === 'push.viewed').map((event) => event.data.views_remaining);
    expect(viewed.sort()).toEqual([0, 1]);
  });

  it('tells who expired a push: its owner, a viewer, or the end of its days (lazily or by the sweep)', async () => {
    await register(['push.expired']);
    const byOwner = await api.createPush({ payload: 'a' }, owner);
    const byViewer = await api.createPush({ payload: 'b', deletable_by_viewer: true }, owner);
    const lazily = await api.createPush({ payload: 'c', expire_after_days: 1 }, owner);
    const bySweep = await api.createPush({ payload: 'd', expire_after_days: 1 }, owner);
    expect((await api.delete(`/api/v2/pushes/${byOwner.url_token}`, owner)).status).toBe(200);
    expect((await api.delete(`/api/v2/pushes/${byViewer.url_token}`)).status).toBe(200);
    app.clock.advance(DAY_MS);
    expect((await api.get(`/api/v2/pushes/${lazily.url_token}`)).body).toMatchObject({ expired: true });
    expect(await app.service(ExpirySweepService).sweep()).toMatchObject({ expired: 1 });

    await round();
    const reasons = Object.fromEntries(events().map((event) => [event.data.url_token_prefix, event.data.reason]));
    const prefix = (push: { url_token: string }) => push.url_token.slice(0, 8);
    expect(reasons).toEqual({ [prefix(byOwner)]: 'owner', [prefix(byViewer)]: 'viewer', [prefix(lazily)]: 'days', [prefix(bySweep)]: 'days' });
  });

  it('drains a backlog in one round, batch after batch, rather than one batch per poll', async () => {
    await register(['push.created']);
    for (let i = 0; i < 45; i++) await api.createPush({ payload: `p${i}` }, owner);
    expect(await round()).toEqual({ dispatched: 45, delivered: 45, retried: 0, dead: 0 });
    expect(new Set(receiver.received.map((hook) => hook.headers['webhook-id'])).size).toBe(45);
  });

  it('sends only the events an endpoint subscribed to', async () => {
    await register(['push.viewed']);
    const push = await api.createPush({ payload: 'x', expire_after_views: 1 }, owner);
    await api.get(`/api/v2/pushes/${push.url_token}`);
    await round();
    expect(events().map((event) => event.type)).toEqual(['push.viewed']);
  });

  it('records nothing for pushes whose owner has no endpoint, nor for anonymous pushes', async () => {
    const push = await api.createPush({ payload: 'x', expire_after_views: 1 }, owner);
    const anonymous = await api.createPush({ payload: 'y', expire_after_views: 1 });
    await api.get(`/api/v2/pushes/${push.url_token}`);
    await api.get(`/api/v2/pushes/${anonymous.url_token}`);
    expect(await outboxRows()).toBe(0);

    const { id } = await register();
    const later = await api.createPush({ payload: 'z' }, owner);
    expect(await outboxRows()).toBe(1);
    expect((await api.delete(`/api/v2/webhooks/${id}`, owner)).status).toBe(204);
    await api.get(`/api/v2/pushes/${later.url_token}`);
    expect(await outboxRows()).toBe(1);
  });

  it('retries a receiver that is down, with backoff, and delivers once it is back; the delivery list shows the attempts', async () => {
    const { id } = await register(['push.created']);
    receiver.answer(503);
    await api.createPush({ payload: 'x' }, owner);
    expect(await round()).toMatchObject({ dispatched: 1, delivered: 0, retried: 1 });
    // Not due again before the backoff (at least half of 10 s).
    expect(await round()).toMatchObject({ delivered: 0, retried: 0 });
    receiver.answer(200);
    app.clock.advance(10_001);
    expect(await round()).toMatchObject({ delivered: 1, retried: 0 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0].headers['webhook-id']).toBe(receiver.received[1].headers['webhook-id']);

    const { body } = await api.get(`/api/v2/webhooks/${id}/deliveries`, owner);
    expect(body.deliveries).toEqual([
      expect.objectContaining({ event: 'push.created', status: 'delivered', attempts: 2, last_status_code: 200, last_error: null, message_id: receiver.received[0].headers['webhook-id'] }),
    ]);
  });

  it('counts sent, retried and failed deliveries and shows the queue in /metrics', async () => {
    const metric = async (name: string) => {
      const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
      return Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    };
    await register(['push.created']);
    receiver.answer(503);
    await api.createPush({ payload: 'x' }, owner);
    expect(await metric('pwpush_notification_queue_depth')).toBe(1);
    await round();
    expect(await metric('pwpush_notifications_total{channel="webhook",outcome="retried"}')).toBe(1);
    expect(await metric('pwpush_notification_queue_depth')).toBe(1);
    app.clock.advance(MINUTE);
    expect(await metric('pwpush_notification_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(60);
    receiver.answer(200);
    await round();
    expect(await metric('pwpush_notifications_total{channel="webhook",outcome="sent"}')).toBe(1);
    expect(await metric('pwpush_notification_queue_depth')).toBe(0);
    expect(await metric('pwpush_notification_queue_oldest_age_seconds')).toBe(0);
  });

  it('keeps delivered history 7 days (PWP__PURGE_AFTER if shorter), and never what is still pending', async () => {
    const worker = app.service(NotificationWorker);
    await register(['push.created']);
    await api.createPush({ payload: 'delivered' }, owner);
    await round();
    receiver.answer(500);
    await api.createPush({ payload: 'pending' }, owner);
    await round();
    app.clock.advance(7 * DAY_MS - MINUTE);
    expect(await worker.cleanUp()).toBe(0);
    app.clock.advance(2 * MINUTE);
    expect(await worker.cleanUp()).toBe(1);
    expect(Number((await app.query('SELECT COUNT(*) AS n FROM deliveries'))[0].n)).toBe(1);
    expect(await outboxRows()).toBe(1);
  });

  it('gives up after PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: the delivery is dead', async () => {
    const { id } = await register(['push.created']);
    receiver.answer(500);
    await api.createPush({ payload: 'x' }, owner);
    let dead = 0;
    for (let attempt = 0; attempt < 20 && dead === 0; attempt++) {
      dead = (await round()).dead;
      app.clock.advance(10 * MINUTE);
    }
    expect(dead).toBe(1);
    const { body } = await api.get(`/api/v2/webhooks/${id}/deliveries`, owner);
    expect(body.deliveries[0]).toMatchObject({ status: 'dead', last_status_code: 500, last_error: 'HTTP 500' });
    const attempts = receiver.received.length;
    app.clock.advance(DAY_MS);
    await round();
    expect(receiver.received).toHaveLength(attempts);
  });

  it('refuses private, loopback and metadata addresses at registration, and a name resolving to loopback (at once: dead) or a redirect at delivery', async () => {
    for (const url of ['https://127.0.0.2/hook', 'https://169.254.169.254/latest', 'https://10.0.0.1/hook', 'ftp://example.com/hook', 'mailto:someone.else@example.com']) {
      const refused = await api.post('/api/v2/webhooks', { url, events: ['push.created'] }, owner);
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(['url']);
    }
    const redirected = await register(['push.created']);
    receiver.answer(302, 'http://127.0.0.1:1/elsewhere');
    await api.createPush({ payload: 'y' }, owner);
    await round();
    expect(receiver.received).toHaveLength(1);
    const after = await api.get(`/api/v2/webhooks/${redirected.id}/deliveries`, owner);
    expect(after.body.deliveries[0]).toMatchObject({ status: 'pending', last_status_code: 302, last_error: 'redirect not followed (HTTP 302)' });
    await api.delete(`/api/v2/webhooks/${redirected.id}`, owner);

    // Names are judged when delivering, by what they resolve to: a worker whose allow-list is empty
    // refuses localhost without connecting. (Last: a second app in this process takes over the
    // first's passport strategies, so the rest of the test talks to it.)
    const byName = await register(['push.created'], receiver.url.replace('127.0.0.1', 'localhost'));
    await api.createPush({ payload: 'x' }, owner);
    const strict = await startTestApp({ PWP__WEBHOOKS__ALLOW_HTTP: 'true' }, app.database);
    try {
      // The address policy's refusal is final: dead at the first attempt, with the reason, rather than retried for a day.
      expect(await strict.service(NotificationWorker).round()).toMatchObject({ dispatched: 1, delivered: 0, retried: 0, dead: 1 });
      expect(receiver.received).toHaveLength(1);
      const named = await client(strict.baseUrl).get(`/api/v2/webhooks/${byName.id}/deliveries`, owner);
      expect(named.body.deliveries[0]).toMatchObject({ status: 'dead', attempts: 1, last_status_code: null });
      expect(named.body.deliveries[0].last_error).toMatch(/^refused: resolves to a private/);
      strict.clock.advance(DAY_MS);
      expect(await strict.service(NotificationWorker).round()).toMatchObject({ delivered: 0, retried: 0, dead: 0 });
      // Without the allow-list, 127.0.0.1 itself is refused at registration.
      const loopback = await client(strict.baseUrl).post('/api/v2/webhooks', { url: receiver.url, events: ['push.created'] }, owner);
      expect(loopback.status).toBe(422);
      expect(loopback.body.errors.url[0]).toMatch(/^Url must not point to a private, loopback/);
    } finally {
      await strict.close();
    }
  });

  it('sends the full url_token only to an endpoint registered with include_url_token: true, and says which do', async () => {
    const plain = await register(['push.created']);
    const trusted = await api.post('/api/v2/webhooks', { url: `${receiver.url}?trusted`, events: ['push.created'], include_url_token: true }, owner);
    expect(trusted.status).toBe(201);
    expect(trusted.body).toMatchObject({ include_url_token: true, disabled_at: null });
    expect((await api.post('/api/v2/webhooks', { url: receiver.url, events: ['push.created'], include_url_token: 'maybe' }, owner)).status).toBe(422);
    const listed = (await api.get('/api/v2/webhooks', owner)).body as { id: string; include_url_token: boolean }[];
    expect(listed.map((webhook) => [webhook.id, webhook.include_url_token])).toEqual([[plain.id, false], [trusted.body.id, true]]);

    const push = await api.createPush({ payload: SECRET_PAYLOAD }, owner);
    expect(await round()).toMatchObject({ delivered: 2 });
    // Which endpoint a body went to: the one whose secret signed it.
    const [toPlain, toTrusted] = [plain.secret, trusted.body.secret as string].map((secret) => {
      const hook = receiver.received.find((candidate) => {
        try {
          new Webhook(secret).verify(candidate.body, candidate.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      return JSON.parse(hook!.body) as { data: Record<string, unknown> };
    });
    expect(toPlain.data).toMatchObject({ url_token_prefix: push.url_token.slice(0, 8) });
    expect(toPlain.data).not.toHaveProperty('url_token');
    expect(JSON.stringify(toPlain)).not.toContain(push.url_token);
    expect(toTrusted.data).toMatchObject({ url_token_prefix: push.url_token.slice(0, 8), url_token: push.url_token });
    // The outbox keeps the full token (the opted-in endpoints need it), as the push's own row does.
    const [stored] = await app.query<{ payload: string }>('SELECT payload FROM outbox');
    expect(JSON.parse(stored.payload).data.url_token).toBe(push.url_token);
  });

  it("refuses Azure's host address and IPv6 addresses that carry a refused IPv4 address at registration", async () => {
    for (const url of [
      'https://168.63.129.16/hook',
      'https://[::ffff:a9fe:a9fe]/latest',
      'https://[64:ff9b::7f00:2]/hook',
      'https://[64:ff9b:1::a9fe:a9fe]/hook',
      'https://[2002:a9fe:a9fe::1]/hook',
      'https://[2002:7f00:2::]/hook', // 127.0.0.2: this app allows 127.0.0.1 alone
    ]) {
      const refused = await api.post('/api/v2/webhooks', { url, events: ['push.created'] }, owner);
      expect({ url, status: refused.status, errors: refused.body.errors }).toEqual({ url, status: 422, errors: { url: [expect.stringMatching(/^Url must not point to a private, loopback/)] } });
    }
    expect((await api.post('/api/v2/webhooks', { url: 'https://[2002:808:808::1]/hook', events: ['push.created'] }, owner)).status).toBe(201);
  });

  it('tells the owner one same text for every failure without an HTTP answer: refused, timed out, TLS, DNS (no scanning by error texts)', async () => {
    const silent = await startSilentEndpoint();
    try {
      const port = new URL(receiver.url).port;
      const urls = {
        refused: `http://127.0.0.1:${await freePort()}/hook`,
        timeout: silent.url('hook'),
        tls: `https://127.0.0.1:${port}/hooks`,
        dns: 'http://hooks.invalid/hook',
      };
      const registered: [string, string][] = [];
      for (const [kind, url] of Object.entries(urls)) registered.push([kind, (await register(['push.created'], url)).id]);
      await api.createPush({ payload: 'x' }, owner);
      expect(await round()).toMatchObject({ dispatched: 1, delivered: 0, retried: 4 });
      for (const [kind, id] of registered) {
        const [delivery] = (await api.get(`/api/v2/webhooks/${id}/deliveries`, owner)).body.deliveries as Record<string, unknown>[];
        expect({ kind, ...delivery }).toMatchObject({ kind, status: 'pending', last_status_code: null, last_error: 'no answer (connection failed or timed out)' });
      }
    } finally {
      await silent.close();
    }
  });

  it('lets each user see and change only their own endpoints; secrets are shown at creation and rotation only', async () => {
    const first = await register(['push.viewed']);
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await api.get('/api/v2/webhooks', owner);
    expect(list.body).toEqual([
      { id: first.id, url: receiver.url, events: ['push.viewed'], description: 'test receiver', include_url_token: false, disabled_at: null, disabled_reason: null, created_at: expect.any(String) },
    ]);

    const other = { authorization: `Bearer ${await app.createUser('other@example.com')}` };
    expect((await api.get('/api/v2/webhooks', other)).body).toEqual([]);
    expect((await api.delete(`/api/v2/webhooks/${first.id}`, other)).status).toBe(404);
    expect((await api.post(`/api/v2/webhooks/${first.id}/rotate_secret`, {}, other)).status).toBe(404);
    expect((await api.get(`/api/v2/webhooks/${first.id}/deliveries`, other)).status).toBe(404);
    expect((await api.get('/api/v2/webhooks')).status).toBe(401);

    const rotated = await api.post(`/api/v2/webhooks/${first.id}/rotate_secret`, {}, owner);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(first.secret);
    const push = await api.createPush({ payload: 'x' }, owner);
    await api.get(`/api/v2/pushes/${push.url_token}`);
    await round();
    const [hook] = receiver.received;
    expect(() => new Webhook(rotated.body.secret as string).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(first.secret).verify(hook.body, hook.headers as Record<string, string>)).toThrow();

    expect((await api.post('/api/v2/webhooks', { url: receiver.url, events: ['push.unknown'] }, owner)).status).toBe(422);
    expect((await api.post('/api/v2/webhooks', { url: receiver.url, events: [] }, owner)).status).toBe(422);
  });

  it('keeps an owner\'s events capped with their audit entries: a hammered wrong passphrase cannot flood the endpoint', async () => {
    await register(['push.passphrase_failed']);
    const capped = await startTestApp({ AUDIT_MAX_ENTRIES_PER_PUSH: '10' }, app.database);
    try {
      const cappedApi = client(capped.baseUrl);
      const push = await cappedApi.createPush({ payload: 'x', passphrase: 'right' }, owner);
      for (let i = 0; i < 20; i++) {
        // Past the passphrase lockout's minute each time, so every attempt is checked (and fails).
        capped.clock.advance(MINUTE);
        expect((await cappedApi.get(`/api/v2/pushes/${push.url_token}?passphrase=wrong`)).status).toBe(401);
      }
      // The creation took one of the 10 entries.
      const failures = await app.query("SELECT COUNT(*) AS n FROM outbox WHERE type = 'push.passphrase_failed'");
      expect(Number(failures[0].n)).toBe(9);
    } finally {
      await capped.close();
    }
  });
});
