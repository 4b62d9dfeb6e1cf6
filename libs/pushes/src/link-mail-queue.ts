import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '@app/auth';
import type { FieldFaults } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import type { InsertedId, WriteBatch } from '@app/database';
import { type LinkMail, Outbox } from '@app/events';
import { NOTIFY_LOCALES, NOTIFY_MESSAGES, parseRecipients } from './notify-emails';

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

/** What a link mail tells of what it links to: a push, or a secret request (`target: 'request'`). */
export type LinkMailTarget = Pick<LinkMail, 'url_token' | 'html_url' | 'views_remaining' | 'days_remaining' | 'expires_at' | 'passphrase_protected' | 'target'>;

/**
 * The reference's "notify by email" rules, for whatever has a link to mail (a push, a secret
 * request): `notify_emails_to` checked with the reference's messages, then the mail queued in the
 * outbox in the batch of the change that makes the link, counted against the owner's daily limit.
 */
@Injectable()
export class LinkMailQueue {
  constructor(
    private readonly outbox: Outbox,
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
   * Adds a link mail to the batch of the change that makes or names the link: its outbox row
   * (naming the audit entry that reports its progress, when there is one) and the count of its
   * recipients against the owner's daily limit, which undoes the batch when they do not fit.
   */
  add(batch: WriteBatch, target: LinkMailTarget, mail: LinkMailRequest, owner: AuthenticatedUser, now: number, auditEntry?: InsertedId): LinkMailEcho {
    const link = { ...target, recipients: mail.recipients, locale: mail.locale, owner_email: owner.email };
    batch.add(this.outbox.linkMail(owner.id, link, auditEntry, now), 'link mail');
    batch.add(this.outbox.countEmails(owner.id, this.settings.mail.notifyByEmail.dailyLimit, now), 'daily limit');
    return { notify_emails_to: mail.recipients.join(','), notify_emails_to_locale: mail.locale };
  }
}
