import { Injectable } from '@nestjs/common';
import { AuditService } from '@app/audit';
import { type ClientInfo, Clock, NotFoundError } from '@app/common';
import { FileAttachments } from '@app/files';
import { RequestEvents } from './request-events';
import { RequestsRepository, StoredRequest } from './requests.repository';

/**
 * How requests close: lazily when one is read after its time, before its owner's lists, by the
 * sweep, and at its owner's request. Each close destroys the answer in the statement that closes
 * it, and both sides' files right after. Safe with any number of replicas: every UPDATE re-checks
 * that the request is not closed yet.
 */
@Injectable()
export class RequestClosing {
  constructor(
    private readonly repository: RequestsRepository,
    private readonly audit: AuditService,
    private readonly files: FileAttachments,
    private readonly clock: Clock,
    private readonly events: RequestEvents,
  ) {}

  /** The request by token, closed first if its time has come (lazy close); unknown is a 404. */
  async find(urlToken: string): Promise<StoredRequest> {
    const request = await this.repository.findByToken(urlToken);
    if (!request) throw new NotFoundError();
    const now = this.clock.now();
    if (request.state === 'closed' || now < request.closeAfterAt) return request;
    await this.closeElapsed([request.id], now);
    return (await this.repository.findByToken(urlToken)) ?? request;
  }

  /** Closes the owner's requests whose time has come, so their lists agree with reads. */
  async closeElapsedOwnedBy(userId: number): Promise<void> {
    const now = this.clock.now();
    await this.closeElapsed(await this.repository.elapsedOwnedBy(userId, now), now);
  }

  /** Closes up to `batch` requests whose time has come, in one statement; returns how many this call closed. */
  async closeElapsedBatch(batch: number): Promise<number> {
    const now = this.clock.now();
    return this.closeElapsed(await this.repository.elapsed(now, batch), now);
  }

  /** Closes a request at its owner's request, audited (`expire`); nothing when it already was closed. */
  async closeByOwner(request: StoredRequest, client: ClientInfo): Promise<void> {
    const now = this.clock.now();
    const then = [this.audit.requestEntry(request.id, 'expire', client), ...this.events.of(request, 'request.closed', now, 'owner')];
    if (await this.repository.close(request.id, now, (batch) => batch.addAll(then))) {
      await this.files.destroyForRequests([request.id]);
    }
  }

  /**
   * Those whose owners hear of it are closed one by one, each with its event; then the rest in one
   * statement. Files go whether this call closed them or another did a moment before (either way
   * they are closed): blobs first, then rows.
   */
  private async closeElapsed(ids: number[], now: number): Promise<number> {
    if (ids.length === 0) return 0;
    let closed = 0;
    for (const request of await this.repository.heardAmong(ids)) {
      if (await this.repository.closeIfElapsed(request.id, now, (batch) => batch.addAll(this.events.of(request, 'request.closed', now, 'days')))) closed++;
    }
    closed += await this.repository.closeElapsed(ids, now);
    await this.files.destroyForRequests(ids);
    return closed;
  }
}
