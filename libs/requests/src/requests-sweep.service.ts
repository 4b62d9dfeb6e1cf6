import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock, drainInBatches, scheduleExclusive } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { NamedLocks } from '@app/database';
import { FileAttachments } from '@app/files';
import { RequestClosing } from './request-closing';
import { RequestsRepository } from './requests.repository';

export interface RequestsSweepResult {
  /** False when another replica held the sweep lock, so this one did nothing. */
  ran: boolean;
  closed: number;
  purged: number;
}

const LOCK_NAME = 'pwpush_requests_sweep';

/**
 * Closes requests whose time has come (their answers and files destroyed) and, with
 * PWP__PURGE_AFTER, deletes those closed longer ago than that. Batched, one UPDATE per batch that
 * re-checks its condition, and on MySQL one replica at a time (a named lock), as the pushes' sweep.
 */
@Injectable()
export class RequestsSweepService {
  private readonly logger = new Logger('RequestsSweep');

  constructor(
    private readonly repository: RequestsRepository,
    private readonly closing: RequestClosing,
    private readonly files: FileAttachments,
    private readonly locks: NamedLocks,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async sweep(): Promise<RequestsSweepResult> {
    const outcome = await this.locks.withLock(LOCK_NAME, 0, async () => ({
      closed: await this.drain((batch) => this.closing.closeElapsedBatch(batch)),
      purged: this.settings.purgeAfterMs === undefined ? 0 : await this.drain((batch) => this.purgeBatch(this.clock.now() - this.settings.purgeAfterMs!, batch)),
    }));
    if (!outcome.acquired) return { ran: false, closed: 0, purged: 0 };
    const { closed, purged } = outcome.result;
    if (closed + purged > 0) this.logger.log(`Requests sweep: closed ${closed} request(s), purged ${purged}.`);
    return { ran: true, closed, purged };
  }

  /** Purges a batch of closed requests, any files left first; their audit logs go with them. */
  private async purgeBatch(cutoff: number, batch: number): Promise<number> {
    const ids = await this.repository.closedBefore(cutoff, batch);
    await this.files.destroyForRequests(ids);
    // Counted by ids taken, so a batch that deleted fewer (purged by another replica) still ends the drain when short.
    await this.repository.deleteClosed(ids);
    return ids.length;
  }

  private drain(batchOperation: (batch: number) => Promise<number>): Promise<number> {
    return drainInBatches(this.settings.expirySweep.batchSize, batchOperation);
  }
}

/** The sweep's timetable only: with the pushes' sweep (EXPIRY_SWEEP_ENABLED, EXPIRY_SWEEP_INTERVAL_SECONDS). */
@Injectable()
export class RequestsSweepScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('RequestsSweep');

  constructor(
    private readonly sweep: RequestsSweepService,
    private readonly registry: SchedulerRegistry,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    const { enabled, intervalSeconds } = this.settings.expirySweep;
    if (enabled) scheduleExclusive(this.registry, 'Requests sweep', intervalSeconds * 1000, this.logger, () => this.sweep.sweep());
  }
}
