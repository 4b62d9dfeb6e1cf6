import { Injectable } from '@nestjs/common';
import type { Statement } from '@app/database';
import { type ExpiryReason, Outbox } from '@app/events';
import { daysRemaining } from './closing-times';
import type { StoredRequest } from './requests.repository';

export type RequestEventType = 'request.responded' | 'request.closed';

/**
 * The outbox statements a change of a request records, for the batch of the change itself: the
 * owner's endpoints hear of it as they hear of their pushes (signed webhooks, or a mail to the
 * owner), never of the message, the answer, the note or file names.
 */
@Injectable()
export class RequestEvents {
  constructor(private readonly outbox: Outbox) {}

  /** None unless the owner has endpoints: no cost for everyone else. */
  of(request: StoredRequest, type: RequestEventType, now: number, reason?: ExpiryReason): Statement[] {
    if (!request.ownerHasWebhooks) return [];
    const closed = type === 'request.closed';
    const data = {
      url_token: request.urlToken,
      kind: 'request',
      name: request.name,
      views_remaining: 0,
      days_remaining: closed ? 0 : daysRemaining(request, now),
      expired: closed,
      ...(reason && { reason }),
    };
    return [this.outbox.pushEvent(type, request.userId, data, now)];
  }
}
