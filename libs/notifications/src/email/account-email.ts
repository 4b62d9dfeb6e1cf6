import type { AccountMail, AccountMailKind } from '@app/events';
import type { InLanguage } from './email-templates';

/** A mail to a person about their account: a link to act on, or a notice; in the person's preferred language (their words: the catalogues' mail.account.*). */
export interface AccountEmail extends InLanguage {
  kind: AccountMailKind;
  /** The link, with its token (confirmation, reset, unlock). */
  url?: string;
  /** When the link stops working. */
  expiresAt?: Date;
  /** email_changed: the account's new address. */
  newEmail?: string;
}

/** Where each link leads: a page whose button or form uses the token (a GET alone changes nothing). */
const LINK_PATHS: Partial<Record<AccountMailKind, (token: string) => string>> = {
  confirmation: (token) => `/users/confirmation?confirmation_token=${encodeURIComponent(token)}`,
  reset: (token) => `/users/password/edit?reset_password_token=${encodeURIComponent(token)}`,
  unlock: (token) => `/users/unlock?unlock_token=${encodeURIComponent(token)}`,
};

/**
 * The mail's facts from the outbox event and its unsealed token, in `locale` (the person's
 * language, when available): its link then opens the page in that language too.
 */
export function accountEmailOf(mail: AccountMail, token: string | undefined, locale?: string): AccountEmail {
  const path = LINK_PATHS[mail.kind];
  return {
    kind: mail.kind,
    locale,
    url: path && token !== undefined ? `${mail.link_base}${path(token)}${locale ? `&locale=${locale}` : ''}` : undefined,
    expiresAt: mail.expires_at === undefined ? undefined : new Date(mail.expires_at),
    newEmail: mail.new_email,
  };
}
