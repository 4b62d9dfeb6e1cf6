import type { AccountMail, AccountMailKind } from '@app/events';

/** A mail to a person about their account: a link to act on, or a notice. */
export interface AccountEmail {
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

/** The mail's facts from the outbox event and its unsealed token. */
export function accountEmailOf(mail: AccountMail, token: string | undefined): AccountEmail {
  const path = LINK_PATHS[mail.kind];
  return {
    kind: mail.kind,
    url: path && token !== undefined ? `${mail.link_base}${path(token)}` : undefined,
    expiresAt: mail.expires_at === undefined ? undefined : new Date(mail.expires_at),
    newEmail: mail.new_email,
  };
}

/** The words of each account mail (English; the languages issue translates them). */
export const ACCOUNT_MAIL_TEXT: Record<AccountMailKind, { subject: string; intro: string; action?: string; note: string }> = {
  confirmation: {
    subject: 'Confirm your email address',
    intro: 'Open this link and press the button on its page to confirm this address for your account:',
    action: 'Confirm my address',
    note: 'If you did not ask for an account or a new address, ignore this mail: nothing changes without the button.',
  },
  reset: {
    subject: 'Choose a new password',
    intro: 'Someone, hopefully you, asked to reset the password of your account. Open this link to choose a new one:',
    action: 'Choose a new password',
    note: 'If you did not ask for it, ignore this mail: your password stays as it is.',
  },
  unlock: {
    subject: 'Your account is locked',
    intro: 'Your account was locked after 10 failed sign-ins. It unlocks by itself after an hour, or now with this link:',
    action: 'Unlock my account',
    note: 'If those sign-ins were not yours, someone may be guessing your password: change it once you are back in.',
  },
  password_changed: {
    subject: 'Your password was changed',
    intro: 'The password of your account was just changed.',
    note: 'If you did not change it, reset it at once with "Forgot your password?" on the sign-in page, or ask your administrator.',
  },
  email_changed: {
    subject: 'Your email address was changed',
    intro: 'The address of your account was just changed to',
    note: 'If you did not change it, ask your administrator at once.',
  },
};
