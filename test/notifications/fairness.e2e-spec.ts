import { Webhook } from 'standardwebhooks';
import { NotificationWorker } from '@app/notifications';
import { ApiClient, client } from '../support/http';
import { Mailpit, startMailpit } from '../support/mailpit';
import { SilentEndpoint, startSilentEndpoint } from '../support/silent-endpoint';
import { startMailingTestApp, startTestApp, TestApp } from '../support/test-app';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

/**
 * One user must not be able to stall everyone else's notifications (issue 28): user X registers
 * ten endpoints that accept the connection and never answer (a real local server, the default
 * 10 s deadline) and floods them; user Y's webhook and link mail still arrive at once. And an
 * endpoint that keeps failing is paused, then disabled, as its owner can see and undo.
 */

const HTTP_TO_LOCALHOST = { PWP__WEBHOOKS__ALLOW_HTTP: 'true', PWP__WEBHOOKS__ALLOWED_HOSTS: '127.0.0.1' };
/** The worker as in production, polling every second. */
const RUNNING_WORKER = { NOTIFICATIONS_WORKER_ENABLED: 'true', PWP__NOTIFICATIONS__POLL_SECONDS: '1' };

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('fair delivery: one user cannot stall the others', () => {
  let app: TestApp;
  let api: ApiClient;
  let silent: SilentEndpoint;
  let receiver: WebhookReceiver;

  const bearer = async (email: string) => ({ authorization: `Bearer ${await app.createUser(email)}` });
  const register = async (owner: Record<string, string>, url: string) => {
    const created = await api.post('/api/v2/webhooks', { url, events: ['push.created'] }, owner);
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  };
  /** X's ten endpoints that never answer, and X's pushes: ten deliveries each. */
  const flood = async (pushes: number) => {
    const x = await bearer('x@example.com');
    for (let i = 0; i < 10; i++) await register(x, silent.url(`x${i}`));
    for (let i = 0; i < pushes; i++) await api.createPush({ payload: `x${i}` }, x);
  };

  beforeEach(async () => {
    silent = await startSilentEndpoint();
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    // First, so that the attempts held by the silent endpoints end and the app closes at once.
    await silent.close();
    await app?.close({ drop: true });
    await receiver.close();
  });

  it("delivers another user's webhook within 10 s while one user floods ten endpoints that never answer, holding no more than their share", async () => {
    app = await startTestApp({ ...HTTP_TO_LOCALHOST, ...RUNNING_WORKER });
    api = client(app.baseUrl);
    const y = await bearer('y@example.com');
    const { secret } = await register(y, receiver.url);
    await flood(30);
    await waitFor("X's deliveries in flight", () => silent.open() >= 8, 15_000);

    const started = Date.now();
    await api.createPush({ payload: 'y' }, y);
    await waitFor("Y's webhook", () => receiver.received.length === 1, 20_000);
    expect(Date.now() - started).toBeLessThanOrEqual(10_000);
    expect(() => new Webhook(secret).verify(receiver.received[0].body, receiver.received[0].headers as Record<string, string>)).not.toThrow();
    // X's 300 deliveries held no more than PWP__NOTIFICATIONS__PER_USER (8) of the 20 slots: within
    // the 10 s deadline of X's first attempts, no more were made.
    expect(silent.acceptedWithin(9_000)).toBe(8);
  });

  describe('with mail', () => {
    let mailpit: Mailpit;
    beforeAll(async () => {
      mailpit = await startMailpit();
    });
    afterAll(() => mailpit.stop());

    it('never makes a mail to a person (a link mail) wait behind webhooks, even when webhooks hold every slot', async () => {
      // Two slots for endpoints, both X's: only the link mails' own lane lets Y's mail through.
      app = await startMailingTestApp({ ...HTTP_TO_LOCALHOST, ...RUNNING_WORKER, ...mailpit.env, PWP__NOTIFICATIONS__BATCH_SIZE: '2', PWP__NOTIFICATIONS__PER_USER: '2' });
      api = client(app.baseUrl);
      await mailpit.deleteAll();
      const y = await bearer('y@example.com');
      await flood(5);
      await waitFor("X's deliveries in flight", () => silent.open() >= 2, 15_000);

      const started = Date.now();
      const push = await api.post('/api/v2/pushes', { push: { payload: 'y', notify_emails_to: 'recipient@example.com' } }, y);
      expect(push.status).toBe(201);
      await mailpit.waitForMessages(1, 20_000);
      expect(Date.now() - started).toBeLessThanOrEqual(10_000);
      expect(silent.acceptedWithin(9_000)).toBe(2);
    });
  });
});

describe('endpoint health: an endpoint that keeps failing', () => {
  let app: TestApp;
  let api: ApiClient;
  let receiver: WebhookReceiver;
  let owner: Record<string, string>;
  const round = () => app.service(NotificationWorker).round();
  const metric = async (name: string) => {
    const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
    return Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
  };

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    app = await startTestApp({ ...HTTP_TO_LOCALHOST, PWP__NOTIFICATIONS__BACKOFF_SECONDS: '10', PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES: '3' });
    api = client(app.baseUrl);
    owner = { authorization: `Bearer ${await app.createUser('owner@example.com')}` };
  });
  afterEach(async () => {
    await app.close({ drop: true });
    await receiver.close();
  });

  it('is paused (its deliveries wait, new ones too), then disabled (shown, counted, its deliveries given up), and enabled again by its owner', async () => {
    const { id } = (await api.post('/api/v2/webhooks', { url: receiver.url, events: ['push.created'] }, owner)).body as { id: string };
    receiver.answer(503);
    await api.createPush({ payload: 'first' }, owner);
    expect(await round()).toMatchObject({ dispatched: 1, retried: 1 });

    // Paused for 10 s after its first failure: an event's delivery made meanwhile waits too.
    await api.createPush({ payload: 'second' }, owner);
    expect(await round()).toEqual({ dispatched: 1, delivered: 0, retried: 0, dead: 0 });
    expect(receiver.received).toHaveLength(1);

    // Both attempted once the pause ends, side by side; failing together they count as one failure (a 20 s pause).
    app.clock.advance(10_001);
    expect(await round()).toMatchObject({ retried: 2 });
    expect(receiver.received).toHaveLength(3);
    app.clock.advance(10_001);
    expect(await round()).toMatchObject({ retried: 0, dead: 0 });
    expect(receiver.received).toHaveLength(3);

    // The third failure in a row disables it: both deliveries are given up, with the reason.
    app.clock.advance(10_001);
    expect(await round()).toMatchObject({ retried: 0, dead: 2 });
    const reason = 'endpoint disabled after 3 failures in a row; the last: HTTP 503';
    const [listed] = (await api.get('/api/v2/webhooks', owner)).body as Record<string, unknown>[];
    expect(listed).toMatchObject({ id, disabled_at: expect.any(String), disabled_reason: reason });
    const { deliveries } = (await api.get(`/api/v2/webhooks/${id}/deliveries`, owner)).body as { deliveries: Record<string, unknown>[] };
    expect(deliveries.map((delivery) => [delivery.status, delivery.last_error])).toEqual([['dead', reason], ['dead', reason]]);
    expect(await metric('pwpush_webhook_endpoints_disabled_total')).toBe(1);
    expect(await metric('pwpush_notifications_total{channel="webhook",outcome="failed"}')).toBe(2);

    // Disabled: nothing is made for it any more.
    receiver.answer(204);
    await api.createPush({ payload: 'third' }, owner);
    expect(await round()).toEqual({ dispatched: 1, delivered: 0, retried: 0, dead: 0 });
    expect(receiver.received).toHaveLength(5);

    // Its owner (and only they) enable it: new events reach it again; what was given up stays dead.
    const other = { authorization: `Bearer ${await app.createUser('other@example.com')}` };
    expect((await api.post(`/api/v2/webhooks/${id}/enable`, {}, other)).status).toBe(404);
    const enabled = await api.post(`/api/v2/webhooks/${id}/enable`, {}, owner);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ id, disabled_at: null, disabled_reason: null });
    await api.createPush({ payload: 'fourth' }, owner);
    expect(await round()).toMatchObject({ dispatched: 1, delivered: 1 });
    expect(receiver.received).toHaveLength(6);
    const after = (await api.get(`/api/v2/webhooks/${id}/deliveries`, owner)).body as { deliveries: Record<string, unknown>[] };
    expect(after.deliveries.map((delivery) => delivery.status)).toEqual(['delivered', 'dead', 'dead']);
  });
});
