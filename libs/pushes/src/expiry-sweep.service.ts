import { Injectable, Logger } from '@nestjs/common';
import { Clock, drainInBatches } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { NamedLocks } from '@app/database';
import { FileAttachments } from '@app/files';
import { Metrics } from '@app/metrics';
import { PushExpiry } from './push-expiry';
import { PushesRepository } from './pushes.repository';

export interface SweepResult {
  /** False when another replica held the sweep lock, so this one did nothing. */
  ran: boolean;
  expired: number;
  purged: number;
  /** File blobs destroyed: of pushes whose days or last view's links ran out, and abandoned uploads. */
  filesDestroyed: number;
  durationMs: number;
}

const LOCK_NAME = 'pwpush_expiry_sweep';

/**
 * Expires pushes whose day window has elapsed and, with PWP__PURGE_AFTER, deletes pushes that
 * expired longer ago than that. Set-based and batched (memory does not grow with the number of
 * pushes), idempotent (every UPDATE re-checks its condition), and on MySQL one replica at a time
 * (a named lock; the others skip the round rather than repeat the work).
 */
@Injectable()
export class ExpirySweepService {
  private readonly logger = new Logger('ExpirySweep');

  constructor(
    private readonly repository: PushesRepository,
    private readonly locks: NamedLocks,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
    private readonly metrics: Metrics,
    private readonly files: FileAttachments,
    private readonly expiry: PushExpiry,
  ) {}

  async sweep(): Promise<SweepResult> {
    const started = performance.now();
    const outcome = await this.locks.withLock(LOCK_NAME, 0, async () => ({
      // Those whose owners hear of it one by one with their events, then the rest set-based.
      expired:
        (await this.expiry.expireElapsedHeard(this.clock.now())) + (await this.drain((batch) => this.repository.expireElapsedBatch(this.clock.now(), batch))),
      purged: this.settings.purgeAfterMs === undefined ? 0 : await this.drain((batch) => this.purgeBatch(this.clock.now() - this.settings.purgeAfterMs!, batch)),
      // Attached files are due when their push's days end, so this follows the expiry above.
      filesDestroyed: await this.drain((batch) => this.files.destroyDue(batch)),
    }));
    const durationMs = Math.round(performance.now() - started);
    if (!outcome.acquired) {
      this.logger.debug('Expiry sweep skipped: another replica holds the sweep lock.');
      this.metrics.sweepSkipped();
      return { ran: false, expired: 0, purged: 0, filesDestroyed: 0, durationMs };
    }
    const { expired, purged, filesDestroyed } = outcome.result;
    this.metrics.sweepRun(durationMs, expired);
    const message = `Expiry sweep: expired ${expired} push(es), purged ${purged}, destroyed ${filesDestroyed} file(s), in ${durationMs} ms.`;
    if (expired + purged + filesDestroyed > 0) this.logger.log(message);
    else this.logger.debug(message);
    return { ran: true, expired, purged, filesDestroyed, durationMs };
  }

  /** Purges a batch of pushes, their files first. */
  private async purgeBatch(cutoff: number, batch: number): Promise<number> {
    const ids = await this.repository.expiredBefore(cutoff, batch);
    await this.files.destroyFor(ids);
    return this.repository.deleteExpired(ids);
  }

  private drain(batchOperation: (batch: number) => Promise<number>): Promise<number> {
    return drainInBatches(this.settings.expirySweep.batchSize, batchOperation);
  }
}
