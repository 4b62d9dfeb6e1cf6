import { Reader, SettingsError } from './env-reader';
import { MailSettings } from './mail-settings';
import { custom, duration, flag, group } from './setting';

export interface AccountSettings {
  /** PWP__DISABLE_SIGNUPS: no sign-up page, and no account made at a first single sign-on. */
  disableSignups: boolean;
  /** Every address a person gives (sign-up, email change) must match it; tested on the lower-cased address. */
  signupEmailPattern: RegExp;
  /** Confirmation, reset, unlock and "password changed" mails, and the lockout. */
  accountEmails: boolean;
  /** PWP__DISABLE_LOGINS: the sign-in pages answer 404; API tokens keep working. */
  disableLogins: boolean;
  /** A session ends after this long without a request (not with "remember me"). */
  sessionTimeoutMs: number;
  /** Everyone who signs in with a password must turn two-factor on. */
  requireMfa: boolean;
}

const MINUTE_MS = 60_000;
const DAY_MS = 1440 * MINUTE_MS;
/** The reference's default: one @, no whitespace. */
const DEFAULT_EMAIL_PATTERN = String.raw`\A[^@\s]+@[^@\s]+\z`;

/**
 * The reference's accounts settings: who may make an account, how, and how sessions end. Names
 * and defaults are the reference's, so its deployments carry over.
 */
export const ACCOUNTS = group({
  title: 'Accounts',
  intro:
    'People make their own accounts at /users/sign_up unless PWP__DISABLE_SIGNUPS is true; the CLI and single sign-on make them too. ' +
    'While no account exists, the owner pages lead to /first_run, which asks for the boot code the service logs at start-up. See docs/accounts.md.',
  settings: {
    disableSignups: flag({
      name: 'PWP__DISABLE_SIGNUPS',
      default: false,
      meaning: 'true: no sign-up (/users/sign_up answers 404), and no account is made at a first single sign-on, whatever PWP__OIDC__AUTO_PROVISION says.',
    }),
    signupEmailPattern: custom({
      name: 'PWP__SIGNUP_EMAIL_REGEXP',
      default: DEFAULT_EMAIL_PATTERN,
      type: String.raw`regular expression (Ruby's \A and \z read as ^ and $)`,
      meaning: String.raw`Every address given at sign-up or an email change must match it (lower-cased): \A[^@\s]+@(example\.com|example\.org)\z admits two domains.`,
      parse: (text, fail) => emailPattern(text) ?? fail('must be a regular expression (as in the reference: \\A[^@\\s]+@[^@\\s]+\\z)'),
    }),
    accountEmails: flag({
      name: 'PWP__ENABLE_USER_ACCOUNT_EMAILS',
      default: false,
      meaning:
        'Confirmation of new accounts and addresses, password reset by mail, the lockout after 10 failed sign-ins with its unlock mail, and a mail when a password changes. Needs mail (PWP__MAIL__SMTP_ADDRESS) and the links\' base (PWP__HOST_DOMAIN or PWP__OVERRIDE_BASE_URL).',
    }),
    disableLogins: flag({
      name: 'PWP__DISABLE_LOGINS',
      default: false,
      meaning: 'true: the sign-in pages answer 404 and pages that need a person send visitors to /; API tokens keep working.',
    }),
    sessionTimeout: duration({
      name: 'PWP__LOGIN_SESSION_TIMEOUT',
      default: '2 hours',
      min: 5 * MINUTE_MS,
      max: 90 * DAY_MS,
      meaning: 'A signed-in person is signed out after this long without a request; "remember me" keeps a session a week instead.',
    }),
    requireMfa: flag({
      name: 'PWP__REQUIRE_MFA',
      default: false,
      meaning:
        'true: everyone who signs in with a password must turn two-factor authentication on before anything else; their API tokens answer 403 until they do. People who sign in only by single sign-on are exempt (their provider decides); see docs/accounts.md.',
    }),
  },
});
const A = ACCOUNTS.settings;

export function readAccountSettings(read: Reader): AccountSettings {
  return {
    disableSignups: read(A.disableSignups),
    signupEmailPattern: read(A.signupEmailPattern),
    accountEmails: read(A.accountEmails),
    disableLogins: read(A.disableLogins),
    sessionTimeoutMs: read(A.sessionTimeout),
    requireMfa: read(A.requireMfa),
  };
}

/** Account emails need a mail server and a base for their links (never taken from a request's headers). */
export function checkAccountEmailsHaveMail(accounts: AccountSettings, mail: MailSettings, overrideBaseUrl: string | undefined): void {
  if (!accounts.accountEmails) return;
  if (!mail.smtp) {
    throw new SettingsError(
      'Invalid setting PWP__ENABLE_USER_ACCOUNT_EMAILS: true needs mail configured (PWP__MAIL__SMTP_ADDRESS and PWP__MAIL__MAILER_SENDER), or confirmation and reset mails could never be sent.',
    );
  }
  if (mail.linkBaseUrl === undefined && overrideBaseUrl === undefined) {
    throw new SettingsError(
      'Invalid setting PWP__ENABLE_USER_ACCOUNT_EMAILS: true needs the base of the links mails carry: PWP__HOST_DOMAIN (with PWP__HOST_PROTOCOL) or PWP__OVERRIDE_BASE_URL.',
    );
  }
}

/**
 * The reference's pattern (a Ruby regular expression) as a JavaScript one: `\A` and `\z` (`\Z`)
 * anchor the whole text, as `^` and `$` do here without the m flag. Undefined when it does not compile.
 */
function emailPattern(source: string): RegExp | undefined {
  const translated = source.replace(/\\\\|\\A|\\[zZ]/g, (token) => (token === '\\A' ? '^' : token === '\\\\' ? token : '$'));
  try {
    return new RegExp(translated);
  } catch {
    return undefined;
  }
}
