import { Injectable } from '@nestjs/common';
import { AuditService } from '@app/audit';
import type { AuthenticatedUser } from '@app/auth';
import { type ClientInfo, Clock, FieldFaults, fieldErrorsOf, TooManyRequestsError, ValidationFailedError } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import type { InsertedId, WriteBatch } from '@app/database';
import { Outbox } from '@app/events';
import { FailedAttempts } from '@app/rate-limit';
import type { NotifyEmailsInput } from './dto/create-push.dto';
import { htmlUrlOf, type NotifyEmailsResponse, remainingOf } from './dto/push-response.dto';
import { type LinkMailEcho, LinkMailQueue, type LinkMailRequest } from './link-mail-queue';
import { MAX_NOTIFY_EMAILS, NOTIFY_MESSAGES } from './notify-emails';
import { checkPushOwner } from './ownership';
import { PushExpiry } from './push-expiry';
import type { PushEntity } from './push.entity';
import { PushesRepository } from './pushes.repository';

const NOTIFY_REQUESTS_PER_MINUTE = 5;

/**
 * The reference's "notify by email": a push's link mailed to recipients its owner names, with a
 * create or later. The mail itself leaves from the outbox; here it is asked for, checked and
 * recorded with its audit entry, under the push's cap and the owner's daily limit.
 */
@Injectable()
export class LinkMails {
  constructor(
    private readonly repository: PushesRepository,
    private readonly expiry: PushExpiry,
    private readonly audit: AuditService,
    private readonly outbox: Outbox,
    private readonly queue: LinkMailQueue,
    private readonly attempts: FailedAttempts,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /**
   * Adds a link mail to the batch of its push's change: its audit entry (status pending), then the
   * mail itself (LinkMailQueue), whose outbox row names that entry.
   */
  add(batch: WriteBatch, pushId: number | InsertedId, push: PushEntity, mail: LinkMailRequest, owner: AuthenticatedUser, client: ClientInfo, now: number): LinkMailEcho {
    const notifyByEmail = { recipients: mail.recipients.join(','), locale: mail.locale, status: 'pending' as const, successful_sends: '', proceed_at: null };
    const entry = batch.add(this.audit.entry(pushId, 'creation_email_send', client, notifyByEmail), 'link mail audit entry');
    const target = {
      url_token: push.urlToken,
      html_url: htmlUrlOf(push, mail.baseUrl),
      ...remainingOf(push, now),
      expires_at: new Date(push.expiresAt).toISOString(),
      passphrase_protected: push.passphraseProtected,
    };
    return this.queue.add(batch, target, mail, owner, now, entry);
  }

  /**
   * Mails the push's link to more recipients (its owner only): at most MAX_NOTIFY_EMAILS over all
   * its sends, the owner's daily limit, and NOTIFY_REQUESTS_PER_MINUTE requests a minute.
   */
  async send(urlToken: string, input: NotifyEmailsInput, client: ClientInfo, caller: AuthenticatedUser): Promise<NotifyEmailsResponse> {
    const push = await this.expiry.findActiveOrExpired(urlToken);
    checkPushOwner(push, caller);
    const key = `notify-emails:${caller.id}`;
    // Counted before anything else, atomically: requests sent together cannot outrun the limit.
    const retryAfter = await this.attempts.take(key, NOTIFY_REQUESTS_PER_MINUTE);
    if (retryAfter > 0) throw new TooManyRequestsError(NOTIFY_MESSAGES.tooManyRequests, retryAfter);
    const faults = new FieldFaults(fieldErrorsOf(input));
    const mail = this.queue.request(input, caller, faults, true);
    faults.throwIfAny();
    if (push.expired) throw ValidationFailedError.of('base', 'That push has expired.');
    const now = this.clock.now();
    await this.queue.prepare(caller);
    if (!(await this.repository.countNotifyEmails(push.id, MAX_NOTIFY_EMAILS, (batch) => this.add(batch, push.id, push, mail!, caller, client, now)))) {
      // Which of the two limits refused it; the daily one first, as the reference checks it first.
      if ((await this.outbox.emailsCountedOn(caller.id, now)) + mail!.recipients.length > this.settings.mail.notifyByEmail.dailyLimit) {
        throw ValidationFailedError.of('base', NOTIFY_MESSAGES.dailyLimit);
      }
      const sent = (await this.repository.findByToken(urlToken))?.notifyEmailsCount ?? push.notifyEmailsCount;
      throw ValidationFailedError.of('base', NOTIFY_MESSAGES.pushCap(sent));
    }
    return { message: NOTIFY_MESSAGES.queued };
  }
}
