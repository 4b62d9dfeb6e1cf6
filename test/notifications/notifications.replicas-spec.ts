import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { PUSH_EVENT_TYPES } from '@app/events';
import { client } from '../support/http';
import { requireServerEngine } from '../support/replicas';
import { CLI_MAIN, runNode, ServerProcess, startServer } from '../support/server-process';
import { type SilentEndpoint, startSilentEndpoint } from '../support/silent-endpoint';
import { TEST_MASTER_KEY } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhooks from several real server processes on one MySQL or PostgreSQL database, each running
 * the notifications worker (as every replica does by default), to a receiver started here on
 * 127.0.0.1. Delivery is at least once: receivers deduplicate by `webhook-id`; these tests show
 * when a message may come twice, and that it never comes twice otherwise.
 */

const POLL_MS = 1000;
const ALL_EVENTS = [...PUSH_EVENT_TYPES];

/** Counts of each value, for comparing multisets: `{ "msg_a": 1, "msg_b": 2 }`. */
function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const idOf = (hook: ReceivedWebhook) => String(hook.headers['webhook-id']);
const idsOf = (hooks: ReceivedWebhook[]) => hooks.map(idOf);
const answeredIds = (receiver: WebhookReceiver) => idsOf(receiver.received.filter((hook) => hook.answered));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The settings every process here gets: the worker on a short pace, plain http to 127.0.0.1 allowed. */
function replicaEnv(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-notify-replicas-')),
    PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
    NOTIFICATIONS_WORKER_ENABLED: 'true',
    PWP__NOTIFICATIONS__POLL_SECONDS: String(POLL_MS / 1000),
    PWP__NOTIFICATIONS__BACKOFF_SECONDS: '1',
    PWP__WEBHOOKS__ALLOW_HTTP: 'true',
    PWP__WEBHOOKS__ALLOWED_HOSTS: '127.0.0.1',
    ...extra,
  };
}

/** A user made by the administration CLI, as operators make them; returns their API token. */
async function createUser(env: Record<string, string>, email: string): Promise<string> {
  const created = await runNode(CLI_MAIN, ['users:create', '--email', email], env);
  if (created.code !== 0) throw new Error(`users:create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { api_token: string }).api_token;
}

/** Registers a webhook for every event; returns its signing secret. */
async function registerWebhook(baseUrl: string, token: string, url: string): Promise<string> {
  const created = await client(baseUrl).post('/api/v2/webhooks', { url, events: ALL_EVENTS }, { authorization: `Bearer ${token}` });
  expect(created.status).toBe(201);
  expect(created.body.secret).toMatch(/^whsec_/);
  return created.body.secret as string;
}

/** The outbox as the database holds it: each event's message id and type. */
async function outboxEvents(database: TestDatabase): Promise<{ id: string; type: string; data: { url_token: string; reason?: string } }[]> {
  const rows = await database.sql<{ payload: string }>('SELECT payload FROM outbox ORDER BY id');
  return rows.map((row) => JSON.parse(row.payload));
}

/** Every request is signed as Standard Webhooks says, with this secret, and carries the event whose id it names. */
function expectSigned(received: ReceivedWebhook[], secret: string): void {
  const verifier = new Webhook(secret);
  for (const hook of received) {
    // Throws (failing the test) on a wrong signature, a stale timestamp or a missing header.
    expect(() => verifier.verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    expect((JSON.parse(hook.body) as { id: string }).id).toBe(idOf(hook));
  }
}

/** What each replica's worker counted as webhooks sent (its /metrics). */
async function webhooksSent(server: ServerProcess): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('pwpush_notifications_total{') && l.includes('channel="webhook"') && l.includes('outcome="sent"'));
  if (!line) throw new Error('no pwpush_notifications_total{channel="webhook",outcome="sent"} in /metrics');
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('webhooks from three replicas on one database', () => {
  let database: TestDatabase;
  let servers: ServerProcess[] = [];
  let receiver: WebhookReceiver;
  let turn = 0;
  const next = () => client(servers[turn++ % servers.length].url);
  const logs = () => servers.map((server) => server.output()).join('\n');

  beforeAll(async () => {
    requireServerEngine();
    database = await createTestDatabase();
    receiver = await startWebhookReceiver();
    // Five deliveries a round per worker, so the three workers take turns at the queue.
    const env = replicaEnv(database, { PWP__NOTIFICATIONS__BATCH_SIZE: '5' });
    servers = await Promise.all([startServer(env), startServer(env), startServer(env)]);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.close();
    await database?.drop();
  });

  it('delivers each of 85 events made across the replicas exactly once, each signed for a Standard Webhooks verifier', async () => {
    const env = replicaEnv(database);
    const token = await createUser(env, 'replicas-owner@example.com');
    const owner = { authorization: `Bearer ${token}` };
    const secret = await registerWebhook(servers[0].url, token, receiver.url);

    // 20 pushes of two views each, created at once across the replicas; every fourth has a passphrase.
    const pushes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        next().createPush({ payload: `replicated secret ${i}`, expire_after_views: 2, ...(i % 4 === 0 && { passphrase: `open sesame ${i}` }) }, owner),
      ),
    );
    const guarded = pushes.filter((_, i) => i % 4 === 0);
    // A wrong passphrase first (an expired push checks none), then three viewers racing for two
    // views on different replicas: two see it, the third finds it expired.
    await Promise.all(guarded.map(({ url_token }) => next().get(`/api/v2/pushes/${url_token}?passphrase=wrong`)));
    const passphraseOf = (i: number) => (i % 4 === 0 ? `?passphrase=${encodeURIComponent(`open sesame ${i}`)}` : '');
    const views = await Promise.all(pushes.flatMap(({ url_token }, i) => Array.from({ length: 3 }, () => next().get(`/api/v2/pushes/${url_token}${passphraseOf(i)}`))));
    expect(views.filter((view) => typeof view.body.payload === 'string')).toHaveLength(40);

    // What was recorded: per push, created, two views, expired by views, and the failed passphrase.
    const events = await outboxEvents(database);
    expect(events).toHaveLength(85);
    for (const [i, { url_token }] of pushes.entries()) {
      const types = events.filter((event) => event.data.url_token === url_token).map((event) => event.type);
      expect(tally(types)).toEqual({ 'push.created': 1, 'push.viewed': 2, 'push.expired': 1, ...(i % 4 === 0 && { 'push.passphrase_failed': 1 }) });
    }

    const ids = events.map((event) => event.id);
    await waitFor('all 85 events at the receiver', () => ids.every((id) => idsOf(receiver.received).includes(id)));
    // Three more rounds of every worker: time for a second delivery of anything to show up.
    await sleep(3 * POLL_MS);

    expect(tally(idsOf(receiver.received))).toEqual(tally(ids));
    expectSigned(receiver.received, secret);
    for (const hook of receiver.received) {
      const event = events.find((e) => e.id === idOf(hook))!;
      // The first 8 characters of the url_token only: this endpoint did not opt in to the full one.
      expect(JSON.parse(hook.body)).toMatchObject({ type: event.type, data: { url_token_prefix: event.data.url_token.slice(0, 8) } });
      expect(hook.body).not.toContain(event.data.url_token);
      expect(hook.body).not.toMatch(/replicated secret|open sesame/);
    }
    // One attempt each: no worker took a delivery another held.
    const deliveries = await database.sql<{ status: string; attempts: number }>('SELECT status, attempts FROM deliveries');
    expect(tally(deliveries.map((d) => `${d.status} after ${d.attempts}`))).toEqual({ 'delivered after 1': 85 });
    // The workers shared the queue, and each delivery was counted by the one worker that sent it.
    const sent = await Promise.all(servers.map(webhooksSent));
    expect(sent.reduce((sum, n) => sum + n, 0)).toBe(85);
    expect(sent.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    expect(logs()).not.toMatch(/deadlock|ER_LOCK|"level":50|Notifications round failed/i);
  });
});

/**
 * A worker killed mid-queue (SIGKILL: no shutdown, no clean-up). What it held is set by the test,
 * not by timing: the requests go to a replica whose worker is off, so the events wait until the
 * worker's process takes them; it dispatches them all, fills its five slots, and sends them to a
 * receiver that holds them without an answer; four more events arrive while it waits, and are
 * dispatched to wait for a free slot.
 */
describe('a worker killed while deliveries are queued and in flight', () => {
  let database: TestDatabase;
  let api: ServerProcess | undefined;
  let worker: ServerProcess | undefined;
  let restarted: ServerProcess | undefined;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    requireServerEngine();
    database = await createTestDatabase();
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    for (const server of [api, worker, restarted]) await server?.stop('SIGKILL');
    await receiver?.close();
    await database?.drop();
  });

  it('delivers every event after a restart; only the five attempts in flight at the kill are received twice', async () => {
    // Long enough that the held attempts are still waiting when the process dies; five slots, all of which one endpoint may hold.
    const workerEnv = replicaEnv(database, {
      PWP__NOTIFICATIONS__BATCH_SIZE: '5',
      PWP__NOTIFICATIONS__PER_ENDPOINT: '5',
      PWP__NOTIFICATIONS__PER_USER: '5',
      PWP__WEBHOOKS__TIMEOUT_SECONDS: '30',
    });
    api = await startServer({ ...workerEnv, NOTIFICATIONS_WORKER_ENABLED: 'false' });
    const token = await createUser(workerEnv, 'killed-worker-owner@example.com');
    const owner = { authorization: `Bearer ${token}` };
    const secret = await registerWebhook(api.url, token, receiver.url);
    const createPushes = (count: number, from: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => client(api!.url).createPush({ payload: `queued secret ${from + i}` }, owner)));

    await createPushes(12, 0);
    receiver.hold();
    worker = await startServer(workerEnv);
    await waitFor('the worker to fill its five slots', () => receiver.received.length >= 5);
    await createPushes(4, 12);
    const undispatched = async () => Number((await database.sql<{ n: number }>('SELECT COUNT(*) AS n FROM outbox WHERE dispatched_at IS NULL'))[0].n);
    await waitFor('the worker to dispatch the four new events while its attempts wait', async () => (await undispatched()) === 0);

    // The queue at the kill: five deliveries claimed and in flight (leased: next_attempt_at is the
    // lease's end, two minutes on), eleven dispatched but not yet attempted (no slot is free).
    const now = Date.now();
    const before = await database.sql<{ id: number; attempts: number; next_attempt_at: string | number; payload: string }>(
      "SELECT d.id, d.attempts, d.next_attempt_at, o.payload FROM deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE d.status = 'pending' ORDER BY d.id",
    );
    const inFlight = before.filter((d) => Number(d.next_attempt_at) > now + 60_000);
    const inFlightIds = inFlight.map((d) => (JSON.parse(d.payload) as { id: string }).id);
    expect(inFlight.map((d) => d.attempts)).toEqual([1, 1, 1, 1, 1]);
    expect(inFlightIds.sort()).toEqual(idsOf(receiver.received).sort());
    expect(before.filter((d) => Number(d.next_attempt_at) <= now).map((d) => d.attempts)).toEqual(new Array(11).fill(0));
    expect(receiver.received).toHaveLength(5);

    await worker.stop('SIGKILL');
    receiver.answer(200);
    restarted = await startServer(workerEnv);

    const events = await outboxEvents(database);
    expect(events).toHaveLength(16);
    const notInFlight = events.map((event) => event.id).filter((id) => !inFlightIds.includes(id));
    await waitFor('the eleven events the killed worker had not sent', () => notInFlight.every((id) => answeredIds(receiver).includes(id)));
    // While their lease runs, the attempts in flight at the kill are left alone: their process
    // might still be sending them.
    await sleep(2 * POLL_MS);
    expect(answeredIds(receiver).filter((id) => inFlightIds.includes(id))).toEqual([]);

    // The lease (LEASE_MS in notification-worker.ts: two minutes, longer than any attempt may take)
    // lapses: made to lapse now in the database rather than waited for.
    await database.sql(`UPDATE deliveries SET next_attempt_at = ? WHERE id IN (${inFlight.map(() => '?').join(', ')})`, [
      Date.now(),
      ...inFlight.map((d) => d.id),
    ]);
    await waitFor('the five attempts in flight at the kill, attempted again', () => inFlightIds.every((id) => answeredIds(receiver).includes(id)));
    await sleep(2 * POLL_MS);

    // Every event answered exactly once; the only ones received twice are the five in flight at the
    // kill (held unanswered by the receiver, then sent again after the restart): at least once.
    expect(tally(answeredIds(receiver))).toEqual(tally(events.map((event) => event.id)));
    const twice = Object.entries(tally(idsOf(receiver.received))).filter(([, n]) => n > 1).map(([id]) => id);
    expect(twice.sort()).toEqual([...inFlightIds].sort());
    expect(receiver.received).toHaveLength(16 + 5);
    expectSigned(receiver.received, secret);
    const deliveries = await database.sql<{ status: string; attempts: number }>('SELECT status, attempts FROM deliveries');
    expect(tally(deliveries.map((d) => `${d.status} after ${d.attempts}`))).toEqual({ 'delivered after 1': 11, 'delivered after 2': 5 });
    expect(restarted.output()).not.toMatch(/"level":50|Notifications round failed/);
  });
});

/**
 * Issue 28 across replicas: user X floods ten endpoints that accept the connection and never
 * answer (each attempt waits out the 10 s deadline); user Y's webhook, made afterwards, must not
 * queue behind them on any of the three workers.
 */
describe('one user flooding endpoints that never answer, with three replicas', () => {
  let database: TestDatabase;
  let servers: ServerProcess[] = [];
  let silent: SilentEndpoint;
  let receiver: WebhookReceiver;
  let turn = 0;
  const next = () => client(servers[turn++ % servers.length].url);

  beforeAll(async () => {
    requireServerEngine();
    database = await createTestDatabase();
    silent = await startSilentEndpoint();
    receiver = await startWebhookReceiver();
    const env = replicaEnv(database);
    servers = await Promise.all([startServer(env), startServer(env), startServer(env)]);
  });

  afterAll(async () => {
    await silent?.close();
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.close();
    await database?.drop();
  });

  it("delivers another user's webhook within 10 s; the flooding user holds at most their share of each replica", async () => {
    const env = replicaEnv(database);
    const x = { authorization: `Bearer ${await createUser(env, 'flooding-x@example.com')}` };
    const yToken = await createUser(env, 'patient-y@example.com');
    for (let i = 0; i < 10; i++) {
      const created = await next().post('/api/v2/webhooks', { url: silent.url(`x${i}`), events: ['push.created'] }, x);
      expect(created.status).toBe(201);
    }
    const secret = await registerWebhook(servers[0].url, yToken, receiver.url);
    for (let i = 0; i < 30; i++) await next().createPush({ payload: `flood ${i}` }, x);
    await waitFor("X's deliveries in flight", () => silent.open() >= 8, 15_000);

    const started = Date.now();
    await next().createPush({ payload: 'patient' }, { authorization: `Bearer ${yToken}` });
    await waitFor("Y's webhook", () => receiver.received.length >= 1, 30_000);
    expect(Date.now() - started).toBeLessThanOrEqual(10_000);
    expectSigned(receiver.received, secret);
    // PWP__NOTIFICATIONS__PER_USER (8) per process: three replicas, 24 at most of their sixty slots
    // (counted within the 10 s deadline of the first attempt, before any could end).
    expect(silent.acceptedWithin(9_000)).toBeLessThanOrEqual(24);
    expect(servers.map((server) => server.output()).join('\n')).not.toMatch(/deadlock|ER_LOCK|"level":50|Notifications round failed/i);
  });
});
