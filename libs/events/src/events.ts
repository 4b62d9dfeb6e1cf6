/**
 * What owners can subscribe to, in the order the API lists them (and the order of a webhook's
 * stored bits: new types are appended). The request.* events tell of the owner's secret requests.
 */
export const PUSH_EVENT_TYPES = [
  'push.created', 'push.viewed', 'push.expired', 'push.passphrase_failed', 'push.file_downloaded', 'request.responded', 'request.closed',
] as const;
export type PushEventType = (typeof PUSH_EVENT_TYPES)[number];

/** Why a push expired: its views were used up, its days elapsed, or its owner, a viewer or an administrator expired it. */
export type ExpiryReason = 'views' | 'days' | 'owner' | 'viewer' | 'admin';

/**
 * What an event tells of its push (or secret request: `kind` "request", `views_remaining` 0,
 * `expired` once closed): never the payload, answer, message, passphrase, note or file names.
 */
export interface PushEventData {
  /**
   * The full token, kept in the outbox (as the push's row keeps it) for the endpoints whose owner
   * opted in; a webhook body carries its first 8 characters otherwise (notifications' webhookBody).
   */
  url_token: string;
  kind: string;
  name: string | null;
  views_remaining: number;
  days_remaining: number;
  expired: boolean;
  /** push.expired and request.closed only (a request's end of time is `days`, its owner's close `owner`). */
  reason?: ExpiryReason;
}

/** An event as the outbox keeps it, from which each endpoint's body is made; `id` is the Standard Webhooks `webhook-id`. */
export interface PushEvent {
  id: string;
  type: PushEventType;
  timestamp: string;
  data: PushEventData;
}

/**
 * The owner's request to mail a push's link to recipients they named (the reference's "notify by
 * email"), or with `target: 'request'` a secret request's link to those who are to answer it.
 */
export interface LinkMail {
  id: string;
  type: 'push.link_mail';
  timestamp: string;
  /** The audit entry whose `notify_by_email` block reports the sending; null for a request (its log has no such entry). */
  audit_entry_id: number | null;
  /** What the link opens; absent: a push (as in mails queued before requests had them). */
  target?: 'request';
  recipients: string[];
  locale: string | null;
  url_token: string;
  html_url: string;
  /** The sender as the mail names them: the push's (or request's) owner. */
  owner_email: string;
  views_remaining: number;
  days_remaining: number;
  expires_at: string;
  passphrase_protected: boolean;
}

/** Which account mail: a link to confirm an address, reset a password or unlock the account, or a notice. */
/** request_answered: one of the person's secret requests was answered (a notice: never the answer, no link). */
export type AccountMailKind = 'confirmation' | 'reset' | 'unlock' | 'password_changed' | 'email_changed' | 'request_answered';

/**
 * A mail to a person about their account. A link's token is sealed with the master key
 * (ACCOUNT_MAIL_TOKEN_CONTEXT) while it waits in the outbox, so the outbox never holds a usable token.
 */
export interface AccountMail {
  id: string;
  type: 'account.mail';
  timestamp: string;
  kind: AccountMailKind;
  to: string;
  /** scheme://host[:port] of the link, from the settings (never a request's headers). */
  link_base: string;
  /** The link's token, sealed (base64url); for confirmation, reset and unlock. */
  sealed_token?: string;
  /** When the link stops working. */
  expires_at?: string;
  /** email_changed: the new address (the mail goes to the old one). */
  new_email?: string;
  /** The person's preferred language when they have one: the mail is written in it. */
  locale?: string;
}

/** The FieldCipher context of an account mail's token. */
export const ACCOUNT_MAIL_TOKEN_CONTEXT = 'account-mail-token';

export type OutboxPayload = PushEvent | LinkMail | AccountMail;
