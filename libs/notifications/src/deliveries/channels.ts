import { Injectable } from '@nestjs/common';
import { AuditService, EmailSendStatus, NotifyByEmail } from '@app/audit';
import { FieldCipher } from '@app/crypto';
import { ACCOUNT_MAIL_TOKEN_CONTEXT, type AccountMail, type LinkMail, type PushEvent } from '@app/events';
import { I18n } from '@app/i18n';
import type { NotificationChannel } from '@app/metrics';
import { accountEmailOf } from '../email/account-email';
import { renderEmail } from '../email/email-templates';
import { MailDeliveryError, Mailer } from '../email/mailer';
import { webhookBody } from '../webhooks/webhook-body';
import { WebhookSender } from '../webhooks/webhook-sender';
import { signWebhook } from '../webhooks/webhook-signature';
import { secretContext } from '../webhooks/webhooks.service';
import type { DueDelivery } from './deliveries.repository';

/** What one attempt achieved: done, or failed with a reason (and a link mail's recipients still to send to). */
export interface AttemptResult {
  ok: boolean;
  statusCode?: number;
  /** What the owner reads. */
  error?: string;
  /** No later attempt can do better: the delivery is given up at once. */
  final?: boolean;
  /** More on the failure, for the operator's log only. */
  detail?: string;
  remaining?: string[];
}

/** The reference's words for a link mail that ended without every recipient. */
const NONE_SENT = 'No emails were sent successfully.';
const SOME_SENT = 'Some emails could not be sent.';

/** Which channel a delivery goes by: no endpoint is a link mail or an account mail; an endpoint is a webhook, or `mailto:` its owner. */
export function channelOf(delivery: Pick<DueDelivery, 'webhook' | 'eventType'>): NotificationChannel {
  if (delivery.eventType === 'account.mail') return 'account_email';
  if (!delivery.webhook) return 'link_email';
  return delivery.webhook.url.toLowerCase().startsWith('mailto:') ? 'owner_email' : 'webhook';
}

/** One attempt of a delivery by its channel: a signed webhook, a mail to the owner, or the link mailed to recipients. */
@Injectable()
export class Channels {
  constructor(
    private readonly sender: WebhookSender,
    private readonly mailer: Mailer,
    private readonly cipher: FieldCipher,
    private readonly audit: AuditService,
    private readonly i18n: I18n,
  ) {}

  attempt(delivery: DueDelivery, now: number): Promise<AttemptResult> {
    switch (channelOf(delivery)) {
      case 'webhook':
        return this.webhook(delivery, now);
      case 'owner_email':
        return this.ownerEmail(delivery);
      case 'link_email':
        return this.linkEmail(delivery, now);
      case 'account_email':
        return this.accountEmail(delivery);
    }
  }

  /** A mail to a person about their account; a link's token is unsealed only here, to go into the mail. */
  private accountEmail(delivery: DueDelivery): Promise<AttemptResult> {
    const mail = JSON.parse(delivery.payload) as AccountMail;
    const token = mail.sealed_token === undefined ? undefined : this.cipher.decrypt(Buffer.from(mail.sealed_token, 'base64url'), ACCOUNT_MAIL_TOKEN_CONTEXT);
    // In the person's preferred language when it is available (its link then opens the page in it too), else the default.
    const locale = this.i18n.supported(mail.locale);
    return this.mail([mail.to], renderEmail('account', { ...accountEmailOf(mail, token, locale), locale: locale ?? this.i18n.defaultLocale }));
  }

  /** A link mail given up on: its audit entry says how it ended, in the reference's words. */
  async linkEmailDead(delivery: DueDelivery, now: number): Promise<void> {
    const mail = JSON.parse(delivery.payload) as LinkMail;
    const sent = sentSoFar(mail, delivery.remaining);
    await this.report(mail, sent.length === 0 ? 'failed' : 'partially_failed', sent, now, sent.length === 0 ? NONE_SENT : SOME_SENT);
  }

  /** The endpoint's body for the event, signed afresh (verifiers refuse old timestamps) under the same message id. */
  private async webhook(delivery: DueDelivery, now: number): Promise<AttemptResult> {
    const { url, secret, publicId, includeUrlToken } = delivery.webhook!;
    const body = webhookBody(delivery.payload, includeUrlToken);
    const { id } = JSON.parse(delivery.payload) as PushEvent;
    const headers = signWebhook({ id, timestamp: new Date(now), body, secret: this.cipher.decrypt(secret, secretContext(publicId)) });
    const result = await this.sender.send({ url, headers, body });
    return { ok: result.ok, statusCode: result.status, error: result.error, final: result.final, detail: result.detail };
  }

  private async ownerEmail(delivery: DueDelivery): Promise<AttemptResult> {
    const event = JSON.parse(delivery.payload) as PushEvent;
    const { data } = event;
    const rendered = renderEmail('owner-event', {
      locale: this.i18n.orDefault(delivery.webhook!.ownerLanguage),
      event: event.type,
      reason: data.reason,
      push: { urlToken: data.url_token, name: data.name, kind: data.kind as never, viewsRemaining: data.views_remaining, daysRemaining: data.days_remaining },
      occurredAt: new Date(event.timestamp),
    });
    return this.mail([delivery.webhook!.url.slice('mailto:'.length)], rendered);
  }

  /**
   * Mails the link (a push's, or a secret request's) to each recipient still to send to, one mail each (recipients do not see each
   * other), and reports the progress on the audit entry: processing, then completed, or kept
   * for a retry with the recipients that failed. Written in notify_emails_to_locale when that
   * language is available, and then its link opens the secret's page in it too (`?locale=`);
   * otherwise in the default language, with the link as it is.
   */
  private async linkEmail(delivery: DueDelivery, now: number): Promise<AttemptResult> {
    const mail = JSON.parse(delivery.payload) as LinkMail;
    const locale = this.i18n.supported(mail.locale);
    const link = {
      locale: locale ?? this.i18n.defaultLocale,
      url: locale ? `${mail.html_url}?locale=${locale}` : mail.html_url,
      sender: mail.owner_email,
      expiresAt: new Date(mail.expires_at),
      passphraseProtected: mail.passphrase_protected,
    };
    const rendered = mail.target === 'request' ? renderEmail('request-link', link) : renderEmail('push-link', { ...link, viewsRemaining: mail.views_remaining });
    const sent = sentSoFar(mail, delivery.remaining);
    if (delivery.attempts === 1) await this.report(mail, 'processing', sent, null);
    const failed: string[] = [];
    let error: string | undefined;
    for (const recipient of delivery.remaining ?? mail.recipients) {
      const result = await this.mail([recipient], rendered);
      if (result.ok) {
        sent.push(recipient);
      } else {
        failed.push(recipient);
        error = result.error;
      }
    }
    if (failed.length === 0) await this.report(mail, 'completed', sent, now);
    else await this.report(mail, 'processing', sent, null);
    return { ok: failed.length === 0, error, remaining: failed };
  }

  private async mail(to: string[], rendered: { subject: string; text: string; html: string }): Promise<AttemptResult> {
    try {
      await this.mailer.send({ to, ...rendered });
      return { ok: true };
    } catch (error) {
      return { ok: false, error: error instanceof MailDeliveryError ? error.message : 'Mail not sent.' };
    }
  }

  /** On the mail's audit entry; a request's mail has none (its log keeps no mail's progress). */
  private async report(mail: LinkMail, status: EmailSendStatus, sent: string[], at: number | null, errorMessage?: string): Promise<void> {
    if (mail.audit_entry_id === null) return;
    const block: NotifyByEmail = {
      recipients: mail.recipients.join(','),
      locale: mail.locale,
      status,
      ...(errorMessage && { error_message: errorMessage }),
      successful_sends: sent.join(','),
      proceed_at: at === null ? null : new Date(at).toISOString(),
    };
    await this.audit.reportEmailSend(mail.audit_entry_id, block);
  }
}

/** The recipients sent to in earlier attempts: all but those still remaining. */
function sentSoFar(mail: LinkMail, remaining: string[] | null): string[] {
  const left = new Set(remaining ?? mail.recipients);
  return mail.recipients.filter((recipient) => !left.has(recipient));
}
