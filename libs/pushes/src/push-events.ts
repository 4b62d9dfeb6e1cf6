import { Injectable } from '@nestjs/common';
import { Statement } from '@app/database';
import { ExpiryReason, Outbox, PushEventType } from '@app/events';
import { remainingOf } from './dto/push-response.dto';
import { PushEntity } from './push.entity';

/** The outbox statements a change of a push records, for the batch of the change itself. */
@Injectable()
export class PushEvents {
  constructor(private readonly outbox: Outbox) {}

  /** None unless the push's owner has endpoints: no cost for everyone else. */
  of(push: PushEntity & { ownerHasWebhooks: boolean }, type: PushEventType, now: number, reason?: ExpiryReason): Statement[] {
    if (!push.ownerHasWebhooks || push.userId === null) return [];
    const data = { url_token: push.urlToken, kind: push.kind, name: push.name, ...remainingOf(push, now), expired: push.expired, ...(reason && { reason }) };
    return [this.outbox.pushEvent(type, push.userId, data, now)];
  }
}
