import { Injectable } from '@nestjs/common';
import { InjectSettings, type Settings } from '@app/config';
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
  constructor(
    private readonly outbox: Outbox,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /**
   * With SMTP configured, a mail to the requester saying the request was answered, in their
   * preferred language: never the answer, the message or the link (an account mail's notice).
   */
  answeredMail(request: StoredRequest, now: number): Statement[] {
    if (this.settings.mail.smtp === undefined || request.ownerEmail === '') return [];
    const linkBase = this.settings.mail.linkBaseUrl ?? this.settings.overrideBaseUrl ?? '';
    const locale = request.ownerLanguage ?? undefined;
    return [this.outbox.accountMail(request.userId, { kind: 'request_answered', to: request.ownerEmail, link_base: linkBase, ...(locale && { locale }) }, now)];
  }

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
