import { Reader } from './env-reader';
import { flag, group, integer } from './setting';

/** How the outbox worker delivers notifications (webhooks and mails alike). */
export interface NotificationSettings {
  /** Whether this process runs the worker (tests drain the outbox themselves). */
  workerEnabled: boolean;
  /** How often the worker looks for due work. */
  pollIntervalMs: number;
  /** The first retry's delay; each later one doubles it (with jitter), up to an hour. */
  backoffMs: number;
  /** A delivery still failing this long after its event is given up on (dead). */
  retryForMs: number;
  /** Most attempts to endpoints (webhooks, owner mails) in flight at once in this process; mails to people have a lane of their own. */
  batchSize: number;
  /** Most attempts in flight at once to one endpoint, in this process: a slow receiver holds no more of the worker. */
  perEndpoint: number;
  /** Most attempts in flight at once for one user's endpoints, in this process: one user cannot take every slot. */
  perUser: number;
  /** A webhook endpoint failing this many times running (each failing pause counts once) is disabled. */
  disableAfterFailures: number;
}

const SECOND_MS = 1000;

export const NOTIFICATIONS = group({
  title: 'Notifications',
  intro: 'The outbox worker, which delivers webhooks and mails alike.',
  settings: {
    workerEnabled: flag({
      name: 'NOTIFICATIONS_WORKER_ENABLED',
      default: true,
      meaning: 'Run the outbox worker in this process (every replica may: claims keep each delivery to one).',
    }),
    pollSeconds: integer({
      name: 'PWP__NOTIFICATIONS__POLL_SECONDS',
      default: 2,
      min: 1,
      max: 3600,
      unit: 'seconds',
      meaning: "How often each replica's worker looks for due work.",
    }),
    backoffSeconds: integer({
      name: 'PWP__NOTIFICATIONS__BACKOFF_SECONDS',
      default: 10,
      min: 1,
      max: 3600,
      unit: 'seconds',
      meaning: "The first retry's delay; each later one doubles it, with jitter, up to an hour.",
    }),
    retryForSeconds: integer({
      name: 'PWP__NOTIFICATIONS__RETRY_FOR_SECONDS',
      default: 86_400,
      min: 60,
      max: 7 * 86_400,
      unit: 'seconds',
      meaning: 'A notification still failing this long after its event is given up (dead).',
    }),
    batchSize: integer({
      name: 'PWP__NOTIFICATIONS__BATCH_SIZE',
      default: 20,
      min: 1,
      max: 500,
      meaning: 'Most attempts to endpoints (webhooks, owner mails) in flight at once in each process; mails to people (link mails, account mails) have 4 more slots of their own.',
    }),
    perEndpoint: integer({
      name: 'PWP__NOTIFICATIONS__PER_ENDPOINT',
      default: 4,
      min: 1,
      max: 100,
      meaning: 'Most attempts in flight at once to one endpoint, in each process.',
    }),
    perUser: integer({
      name: 'PWP__NOTIFICATIONS__PER_USER',
      default: 8,
      min: 1,
      max: 500,
      meaning: "Most attempts in flight at once to one user's endpoints, in each process: one user cannot take every slot.",
    }),
    disableAfterFailures: integer({
      name: 'PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES',
      default: 30,
      min: 1,
      max: 1000,
      meaning: 'A webhook endpoint failing this many times in a row (attempts failing together while it is paused count once) is disabled until its owner enables it.',
    }),
  },
});

export function readNotificationSettings(read: Reader): NotificationSettings {
  const { workerEnabled, pollSeconds, backoffSeconds, retryForSeconds, batchSize, perEndpoint, perUser, disableAfterFailures } = read.all(NOTIFICATIONS);
  return {
    workerEnabled,
    pollIntervalMs: pollSeconds * SECOND_MS,
    backoffMs: backoffSeconds * SECOND_MS,
    retryForMs: retryForSeconds * SECOND_MS,
    batchSize,
    perEndpoint,
    perUser,
    disableAfterFailures,
  };
}
