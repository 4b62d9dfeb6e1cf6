import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus text format 0.0.4, what prom-client's registry produces. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type RetrievalOutcome = 'viewed' | 'owner_view' | 'admin_view' | 'expired' | 'passphrase_failed' | 'rate_limited' | 'not_found';
export type ExpiryReason = 'views' | 'days' | 'deleted' | 'sweep' | 'user_deleted';

export type FileDirection = 'upload' | 'download';
/** Where a notification goes: a signed webhook, a mail to the push's owner, or the link mailed to its recipients. */
export type NotificationChannel = 'webhook' | 'owner_email' | 'link_email' | 'account_email';
/** What became of one delivery attempt: sent, to be retried, or given up on (dead). */
export type NotificationOutcome = 'sent' | 'retried' | 'failed';
/** The outbox's backlog as a scrape sees it: deliveries waiting (and events not yet dispatched), and the oldest one's age. */
export interface NotificationQueue {
  depth: number;
  oldestAgeSeconds: number;
}
/** Each dependency the readiness check knows of, and whether it answers. */
export type DependencyStates = Record<string, boolean>;

const PUSH_KINDS = ['text', 'file', 'url', 'qr'];
const FILE_DIRECTIONS: FileDirection[] = ['upload', 'download'];
const RETRIEVAL_OUTCOMES: RetrievalOutcome[] = ['viewed', 'owner_view', 'admin_view', 'expired', 'passphrase_failed', 'rate_limited', 'not_found'];
const EXPIRY_REASONS: ExpiryReason[] = ['views', 'days', 'deleted', 'sweep', 'user_deleted'];
const NOTIFICATION_CHANNELS: NotificationChannel[] = ['webhook', 'owner_email', 'link_email', 'account_email'];
const NOTIFICATION_OUTCOMES: NotificationOutcome[] = ['sent', 'retried', 'failed'];

/**
 * The process's metrics, in a registry of its own (several apps can live in one test process).
 * Business counters are pre-set to zero for every label value, so rates work from the first
 * scrape and the series set is fixed.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private processMetrics = false;

  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration, by route template, method and status class.',
    labelNames: ['route', 'method', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly pushesCreated = new Counter({
    name: 'pwpush_pushes_created_total',
    help: 'Pushes created, by kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly retrievals = new Counter({
    name: 'pwpush_retrievals_total',
    help: 'Retrieval requests, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly passphraseFailures = new Counter({
    name: 'pwpush_passphrase_failures_total',
    help: 'Missing or wrong passphrases given for protected pushes (retrievals and deletions).',
    registers: [this.registry],
  });

  private readonly expiries = new Counter({
    name: 'pwpush_expiries_total',
    help: 'Pushes expired, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly fileBytes = new Counter({
    name: 'pwpush_file_bytes_total',
    help: 'Plaintext bytes of file attachments received (upload) and sent (download).',
    labelNames: ['direction'] as const,
    registers: [this.registry],
  });

  private readonly blobsDestroyed = new Counter({
    name: 'pwpush_file_blobs_destroyed_total',
    help: 'Stored file blobs destroyed: files of expired pushes, failed and abandoned uploads.',
    registers: [this.registry],
  });

  private readonly sweepRuns = new Counter({
    name: 'pwpush_sweep_runs_total',
    help: 'Expiry sweep rounds: completed here, or skipped because another replica held the sweep lock.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  private readonly sweepDuration = new Histogram({
    name: 'pwpush_sweep_duration_seconds',
    help: 'Duration of completed expiry sweep rounds.',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  private checkDependencies?: () => Promise<DependencyStates>;
  private readonly dependencyUp = new Gauge({
    name: 'pwpush_dependency_up',
    help: 'Whether a dependency answers (1) or not (0), checked at each scrape as /readyz checks it. database: without it the pod is not ready; redis: optional, without it the service is degraded (limits counted per process).',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
    collect: async () => {
      const states = await this.checkDependencies?.();
      for (const [dependency, up] of Object.entries(states ?? {})) this.dependencyUp.set({ dependency }, up ? 1 : 0);
    },
  });

  private readonly notifications = new Counter({
    name: 'pwpush_notifications_total',
    help: 'Notification delivery attempts, by channel and outcome: sent, retried (failed, another attempt is due) or failed (given up: dead).',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly endpointsDisabled = new Counter({
    name: 'pwpush_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled after failing PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES times in a row (their owner enables them again).',
    registers: [this.registry],
  });

  private readQueue?: () => Promise<NotificationQueue>;
  /** The read under way: the two queue gauges, collected together, share it. */
  private queueRead?: Promise<NotificationQueue | undefined>;
  private readonly queueDepth: Gauge = new Gauge({
    name: 'pwpush_notification_queue_depth',
    help: 'Notifications waiting: pending deliveries and events not yet dispatched into deliveries.',
    registers: [this.registry],
    collect: async () => this.queueDepth.set((await this.queue())?.depth ?? 0),
  });

  // Set by its own collect: a registry collects its metrics concurrently, so one gauge cannot set
  // another's value; the two share one read of the queue (queue()).
  private readonly queueOldest: Gauge = new Gauge({
    name: 'pwpush_notification_queue_oldest_age_seconds',
    help: 'Age of the oldest waiting notification (0 when none wait).',
    registers: [this.registry],
    collect: async () => this.queueOldest.set((await this.queue())?.oldestAgeSeconds ?? 0),
  });

  constructor() {
    for (const channel of NOTIFICATION_CHANNELS) for (const outcome of NOTIFICATION_OUTCOMES) this.notifications.inc({ channel, outcome }, 0);
    for (const kind of PUSH_KINDS) this.pushesCreated.inc({ kind }, 0);
    for (const outcome of RETRIEVAL_OUTCOMES) this.retrievals.inc({ outcome }, 0);
    for (const reason of EXPIRY_REASONS) this.expiries.inc({ reason }, 0);
    for (const result of ['completed', 'skipped']) this.sweepRuns.inc({ result }, 0);
    this.passphraseFailures.inc(0);
    for (const direction of FILE_DIRECTIONS) this.fileBytes.inc({ direction }, 0);
    this.blobsDestroyed.inc(0);
    this.endpointsDisabled.inc(0);
  }

  /** Adds the standard process_* and nodejs_* metrics (the server does; the CLI does not). */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** How the notification queue's gauges are read at each scrape: the worker's repository (the CLI has none). */
  watchNotificationQueue(read: () => Promise<NotificationQueue>): void {
    this.readQueue = read;
  }

  notification(channel: NotificationChannel, outcome: NotificationOutcome): void {
    this.notifications.inc({ channel, outcome });
  }

  /** An endpoint disabled, and the pending deliveries given up with it (failed webhooks: they are dead). */
  webhookEndpointDisabled(givenUp: number): void {
    this.endpointsDisabled.inc();
    if (givenUp > 0) this.notifications.inc({ channel: 'webhook', outcome: 'failed' }, givenUp);
  }

  /** The queue now, or nothing (no worker here, or the database not answering: the gauges read 0). */
  private queue(): Promise<NotificationQueue | undefined> {
    this.queueRead ??= (this.readQueue?.() ?? Promise.resolve(undefined)).catch(() => undefined).finally(() => (this.queueRead = undefined));
    return this.queueRead;
  }

  /** How pwpush_dependency_up learns the dependencies' states: the readiness checks (the CLI has none). */
  watchDependencies(check: () => Promise<DependencyStates>): void {
    this.checkDependencies = check;
  }

  observeRequest(route: string, method: string, statusClass: string, seconds: number): void {
    this.requestDuration.observe({ route, method, status_class: statusClass }, seconds);
  }

  pushCreated(kind: string): void {
    this.pushesCreated.inc({ kind: PUSH_KINDS.includes(kind) ? kind : 'other' });
  }

  retrieval(outcome: RetrievalOutcome): void {
    this.retrievals.inc({ outcome });
  }

  passphraseFailed(): void {
    this.passphraseFailures.inc();
  }

  expired(reason: ExpiryReason, count = 1): void {
    if (count > 0) this.expiries.inc({ reason }, count);
  }

  fileTransferred(direction: FileDirection, bytes: number): void {
    if (bytes > 0) this.fileBytes.inc({ direction }, bytes);
  }

  fileBlobsDestroyed(count: number): void {
    if (count > 0) this.blobsDestroyed.inc(count);
  }

  /** A completed sweep round: its duration and how many pushes it expired. */
  sweepRun(durationMs: number, expired: number): void {
    this.sweepRuns.inc({ result: 'completed' });
    this.sweepDuration.observe(durationMs / 1000);
    this.expired('sweep', expired);
  }

  /** A round that did nothing because another replica held the sweep lock. */
  sweepSkipped(): void {
    this.sweepRuns.inc({ result: 'skipped' });
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}
