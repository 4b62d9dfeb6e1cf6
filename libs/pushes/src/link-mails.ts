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
import { MAX_NOTIFY_EMAILS, NOTIFY_LOCALES, NOTIFY_MESSAGES, parseRecipients } from './notify-emails';
import { checkPushOwner } from './ownership';
import { PushExpiry } from './push-expiry';
import type { PushEntity } from './push.entity';
import { PushesRepository } from './pushes.repository';

const NOTIFY_REQUESTS_PER_MINUTE = 5;

/** The link mail a create or a later request asks for: who, in which locale, and the base of its link. */
export interface LinkMailRequest {
  recipients: string[];
  locale: string | null;
  /** The configured base (see MailSettings.linkBaseUrl), never the request's. */
  baseUrl: string;
}

/** What the link mails a creator names as the create's answer echoes it. */
export interface LinkMailEcho {
  notify_emails_to: string;
  notify_emails_to_locale: string | null;
}

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
    private readonly attempts: FailedAttempts,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /**
   * The link mail asked for with `notify_emails_to`, or undefined when none is; faults (mail not
   * available, an anonymous creator, a bad list or locale, and with `required` no list) go to
   * `faults`, with the reference's messages. A create with a locale alone mails nobody, as in the reference.
   */
  request(
    input: { notify_emails_to?: string | null; notify_emails_to_locale?: string | null },
    owner: AuthenticatedUser | undefined,
    faults: FieldFaults,
    required = false,
  ): LinkMailRequest | undefined {
    const to = input.notify_emails_to?.trim() || undefined;
    const locale = input.notify_emails_to_locale?.trim() || null;
    if (to === undefined && locale === null && !required) return undefined;
    const baseUrl = this.settings.mail.emailAvailable ? this.settings.mail.linkBaseUrl : undefined;
    if (baseUrl === undefined) {
      if (to !== undefined) faults.add('notify_emails_to', NOTIFY_MESSAGES.notAvailable);
      if (locale !== null) faults.add('notify_emails_to_locale', NOTIFY_MESSAGES.localeNotAvailable);
      return undefined;
    }
    if (!owner) {
      if (to !== undefined) faults.add('notify_emails_to', NOTIFY_MESSAGES.unknownUser);
      if (locale !== null) faults.add('notify_emails_to_locale', NOTIFY_MESSAGES.localeUnknownUser);
      return undefined;
    }
    if (locale !== null && !NOTIFY_LOCALES.has(locale)) faults.add('notify_emails_to_locale', NOTIFY_MESSAGES.locale);
    if (to === undefined) {
      if (required) faults.add('notify_emails_to', NOTIFY_MESSAGES.blank);
      return undefined;
    }
    const parsed = parseRecipients(to);
    if ('fault' in parsed) {
      faults.add('notify_emails_to', parsed.fault);
      return undefined;
    }
    return { recipients: parsed.recipients, locale, baseUrl };
  }

  /** Makes, once per owner, the counter their daily limit is kept in: before a batch that `add`s a mail. */
  prepare(owner: AuthenticatedUser): Promise<void> {
    return this.outbox.prepareEmailCount(owner.id);
  }

  /**
   * Adds a link mail to the batch of its push's change: its audit entry (status pending), its
   * outbox row, which names that entry, and the count of its recipients against the owner's daily
   * limit, which undoes the batch when they do not fit.
   */
  add(batch: WriteBatch, pushId: number | InsertedId, push: PushEntity, mail: LinkMailRequest, owner: AuthenticatedUser, client: ClientInfo, now: number): LinkMailEcho {
    const notifyByEmail = { recipients: mail.recipients.join(','), locale: mail.locale, status: 'pending' as const, successful_sends: '', proceed_at: null };
    const entry = batch.add(this.audit.entry(pushId, 'creation_email_send', client, notifyByEmail), 'link mail audit entry');
    const link = {
      recipients: mail.recipients,
      locale: mail.locale,
      url_token: push.urlToken,
      html_url: htmlUrlOf(push, mail.baseUrl),
      owner_email: owner.email,
      ...remainingOf(push, now),
      expires_at: new Date(push.expiresAt).toISOString(),
      passphrase_protected: push.passphraseProtected,
    };
    batch.add(this.outbox.linkMail(owner.id, link, entry, now), 'link mail');
    batch.add(this.outbox.countEmails(owner.id, this.settings.mail.notifyByEmail.dailyLimit, now), 'daily limit');
    return { notify_emails_to: notifyByEmail.recipients, notify_emails_to_locale: mail.locale };
  }

  /**
   * Mails the push's link to more recipients (its owner only): at most MAX_NOTIFY_EMAILS over all
   * its sends, the owner's daily limit, and NOTIFY_REQUESTS_PER_MINUTE requests a minute.
   */
  async send(urlToken: string, input: NotifyEmailsInput, client: ClientInfo, caller: AuthenticatedUser): Promise<NotifyEmailsResponse> {
    const push = await this.expiry.findActiveOrExpired(urlToken);
    checkPushOwner(push, caller);
    const key = `notify-emails:${caller.id}`;
    const retryAfter = await this.attempts.blockedFor(key, NOTIFY_REQUESTS_PER_MINUTE);
    if (retryAfter > 0) throw new TooManyRequestsError(NOTIFY_MESSAGES.tooManyRequests, retryAfter);
    await this.attempts.recordFailure(key);
    const faults = new FieldFaults(fieldErrorsOf(input));
    const mail = this.request(input, caller, faults, true);
    faults.throwIfAny();
    if (push.expired) throw ValidationFailedError.of('base', 'That push has expired.');
    const now = this.clock.now();
    await this.prepare(caller);
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
