import { EnvReader } from './env-reader';

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
  /** Deliveries attempted at once by one worker round. */
  batchSize: number;
}

const SECOND_MS = 1000;

export function readNotificationSettings(read: EnvReader): NotificationSettings {
  return {
    workerEnabled: read.bool('NOTIFICATIONS_WORKER_ENABLED', true),
    pollIntervalMs: read.int('PWP__NOTIFICATIONS__POLL_SECONDS', 2, 1, 3600) * SECOND_MS,
    backoffMs: read.int('PWP__NOTIFICATIONS__BACKOFF_SECONDS', 10, 1, 3600) * SECOND_MS,
    retryForMs: read.int('PWP__NOTIFICATIONS__RETRY_FOR_SECONDS', 86_400, 60, 7 * 86_400) * SECOND_MS,
    batchSize: read.int('PWP__NOTIFICATIONS__BATCH_SIZE', 20, 1, 500),
  };
}
