import { LANGUAGE_CODES } from '@app/config';

/**
 * The reference's rules for mailing a push's link to recipients its owner names (its
 * MultipleEmailsValidator and NotifiableByEmail), with its messages. One difference, the
 * contract's: a repeated address is dropped (case-insensitively) rather than refused.
 */

/** Most recipients of one push, over all its sends. */
export const MAX_NOTIFY_EMAILS = 5;

/** The reference's locales (config/settings.yml, enabled_language_codes), one list with the pages'. */
export const NOTIFY_LOCALES: ReadonlySet<string> = new Set(LANGUAGE_CODES);

/** The reference's address pattern: local part, dot-separated domain labels, a top level of two or more. */
const EMAIL = /^[\w.%+-]+@(?:[\w-]+\.)+\w{2,}$/i;

export const NOTIFY_MESSAGES = {
  notAvailable: 'are not available',
  localeNotAvailable: 'is not available',
  unknownUser: 'are not allowed for unknown users',
  localeUnknownUser: 'is not allowed for unknown users',
  blank: "can't be blank",
  commas: 'has commas used in the wrong way',
  tooMany: `contains more than ${MAX_NOTIFY_EMAILS} email(s)`,
  invalid: 'contains invalid email(s)',
  locale: 'is not included in the list',
  dailyLimit: 'The maximum number of emails has been reached for today',
  tooManyRequests: 'Too many email notification requests. Please try again in a minute.',
  queued: 'Recipient(s) are added to the queue to be sent.',
  pushCap: (sent: number) => `You can notify up to ${MAX_NOTIFY_EMAILS} email(s) and you have already sent emails to ${sent} recipients`,
} as const;

/** The recipients of a comma-separated list, deduplicated case-insensitively; or why the list is refused. */
export function parseRecipients(value: string): { recipients: string[] } | { fault: string } {
  const emails = value.split(',').map((email) => email.trim());
  if (value.trim().endsWith(',') || emails.some((email) => email === '')) return { fault: NOTIFY_MESSAGES.commas };
  const byAddress = new Map(emails.map((email) => [email.toLowerCase(), email]));
  const recipients = [...byAddress.values()];
  if (recipients.length > MAX_NOTIFY_EMAILS) return { fault: NOTIFY_MESSAGES.tooMany };
  if (!recipients.every((email) => EMAIL.test(email) && email.length <= 254)) return { fault: NOTIFY_MESSAGES.invalid };
  return { recipients };
}
