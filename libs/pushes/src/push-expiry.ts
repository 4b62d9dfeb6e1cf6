import { Injectable } from '@nestjs/common';
import { AuditService } from '@app/audit';
import type { AuthenticatedUser } from '@app/auth';
import { type ClientInfo, Clock, NotFoundError } from '@app/common';
import { FileAttachments } from '@app/files';
import { Metrics } from '@app/metrics';
import { hasElapsed } from './expiry';
import { PushEvents } from './push-events';
import { PushEntity } from './push.entity';
import { PushesRepository, StoredPush } from './pushes.repository';

/**
 * How pushes end: lazily when one is read after its days, by owner (before their lists, and all of
 * them with their account), by the sweep, and at someone's request. Each expiry destroys the
 * secret in the statement that expires it, the files after, and records its event when the owner
 * has endpoints. Safe with any number of replicas: every UPDATE re-checks that the push is active.
 */
@Injectable()
export class PushExpiry {
  constructor(
    private readonly repository: PushesRepository,
    private readonly audit: AuditService,
    private readonly events: PushEvents,
    private readonly files: FileAttachments,
    private readonly metrics: Metrics,
    private readonly clock: Clock,
  ) {}

  /** The push by token, expired first if its day window has elapsed (lazy expiry); unknown is a 404. */
  async findActiveOrExpired(urlToken: string): Promise<StoredPush> {
    const push = await this.repository.findByToken(urlToken);
    if (!push) throw new NotFoundError();
    const now = this.clock.now();
    if (push.expired || !hasElapsed(push, now)) return push;
    await this.expireElapsed(push, now);
    return (await this.repository.findByToken(urlToken)) ?? push;
  }

  /** Expires the owner's elapsed pushes, so their lists agree with retrievals. */
  async expireElapsedOwnedBy(owner: AuthenticatedUser, now: number): Promise<void> {
    if (owner.hasWebhooks) await this.expireElapsedHeard(now, owner.id);
    this.metrics.expired('days', await this.repository.expireElapsedOwnedBy(owner.id, now));
  }

  /**
   * Expires, one by one with their events, up to `limit` elapsed pushes whose owners have endpoints
   * (of one owner, with `userId`); the set-based expiry then takes the rest. Returns how many.
   */
  async expireElapsedHeard(now: number, userId?: number, limit = 1000): Promise<number> {
    let expired = 0;
    for (const push of await this.repository.findElapsedHeard(now, limit, userId)) {
      if (await this.expireElapsed(push, now)) expired++;
    }
    return expired;
  }

  /** Expires every active push of a user (their account is going away); returns how many. */
  async expireAllOwnedBy(userId: number): Promise<number> {
    const withFiles = await this.repository.filePushIdsOwnedBy(userId);
    const expired = await this.repository.expireAllOwnedBy(userId, this.clock.now());
    await this.files.destroyFor(withFiles);
    this.metrics.expired('user_deleted', expired);
    return expired;
  }

  /**
   * Deletes every push of a user who deletes their own account: the active ones are expired first
   * (their secrets and files destroyed), then every push and its audit log go. Returns how many.
   */
  async deleteAllOwnedBy(userId: number): Promise<number> {
    await this.expireAllOwnedBy(userId);
    return this.repository.deleteOwned(userId);
  }

  /** Expires a push at its owner's request or a viewer's, audited; nothing when it already was expired. */
  async delete(push: StoredPush, byOwner: boolean, client: ClientInfo): Promise<void> {
    const now = this.clock.now();
    const events = this.events.of({ ...push, expired: true }, 'push.expired', now, byOwner ? 'owner' : 'viewer');
    if (await this.repository.expire(push.id, now, true, (batch) => batch.addAll([this.audit.entry(push.id, 'expire', client), ...events]))) {
      await this.destroyFiles(push);
      this.metrics.expired('deleted');
    }
  }

  /**
   * Expires a push at an administrator's request (the administration's "Expire"): audited as
   * `expire` with the administrator's address and client; false when it already was expired.
   */
  async expireByAdministrator(push: StoredPush, administrator: string, client: ClientInfo): Promise<boolean> {
    const now = this.clock.now();
    const events = this.events.of({ ...push, expired: true }, 'push.expired', now, 'admin');
    const entry = this.audit.entry(push.id, 'expire', client, { admin: administrator });
    if (!(await this.repository.expire(push.id, now, true, (batch) => batch.addAll([entry, ...events])))) return false;
    await this.destroyFiles(push);
    this.metrics.expired('deleted');
    return true;
  }

  private async destroyFiles(push: PushEntity): Promise<void> {
    if (push.kind === 'file') await this.files.destroyFor([push.id]);
  }

  private async expireElapsed(push: StoredPush, now: number): Promise<boolean> {
    const events = this.events.of({ ...push, expired: true }, 'push.expired', now, 'days');
    if (!(await this.repository.expire(push.id, now, false, (batch) => batch.addAll(events)))) return false;
    await this.destroyFiles(push);
    this.metrics.expired('days');
    return true;
  }
}
