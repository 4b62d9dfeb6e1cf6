import { isIP } from 'node:net';
import { isHostName, Reader, SettingsError } from './env-reader';
import { choice, flag, group, integer, text } from './setting';

/**
 * The reference's SASL choices (its `smtp_authentication`): `plain` and `login` send the password
 * (inside TLS when STARTTLS or implicit TLS is on), `cram_md5` answers a challenge instead.
 */
export const SMTP_AUTHENTICATIONS = ['plain', 'login', 'cram_md5'] as const;
export type SmtpAuthentication = (typeof SMTP_AUTHENTICATIONS)[number];

/** How the connection to the SMTP server is encrypted. */
export type SmtpTls =
  /** TLS from the first byte (SMTPS, port 465). */
  | 'implicit'
  /** STARTTLS or no mail: the reference's `smtp_starttls`. */
  | 'starttls-required'
  /** STARTTLS when the server offers it: the reference's `smtp_enable_starttls_auto`, on by default. */
  | 'starttls-when-offered'
  /** Plain text throughout. */
  | 'none';

export interface SmtpSettings {
  host: string;
  port: number;
  /** The name given in EHLO (the reference's `smtp_domain`); unset: this machine's host name. */
  heloName?: string;
  /** The sign-in; absent when the server takes mail without one. */
  auth?: { user: string; password: string; method?: SmtpAuthentication };
  tls: SmtpTls;
  /** Whether the server's certificate must be valid for its name (the reference's `smtp_openssl_verify_mode` peer). */
  verifyCertificate: boolean;
  /** How long opening the connection may take, up to the server's greeting. */
  openTimeoutMs: number;
  /** How long the server may then stay silent before the send fails. */
  readTimeoutMs: number;
}

export interface MailSettings {
  /** Where mail goes: set when PWP__MAIL__SMTP_ADDRESS is. */
  smtp?: SmtpSettings;
  /** The From of every mail, e.g. `"Password Pusher" <pwpush@example.com>`; required with smtp. */
  sender?: string;
  /** The reference's "notify by email": a push's link sent to its recipients. */
  notifyByEmail: {
    enabled: boolean;
    /** Most notification mails one user may cause a day, over all their pushes; 0 blocks them all. */
    dailyLimit: number;
  };
  /** Mail is configured, with a base for its links, and the feature is on: the version endpoint's `email_auto_dispatch`. */
  emailAvailable: boolean;
  /**
   * The base of the links mails carry: the reference's PWP__HOST_DOMAIN (and PWP__HOST_PROTOCOL,
   * default https), else PWP__OVERRIDE_BASE_URL. Never the request's Host: whoever sends a create
   * would choose the host of a link the instance mails from its own sender. Unset, no link is mailed.
   */
  linkBaseUrl?: string;
}

const SECOND_MS = 1000;
/** `none` and `peer` as the reference names OpenSSL's modes; 0 and 1 are the constants' values, which it accepts too. */
const VERIFY_MODES = new Map([
  ['none', false],
  ['peer', true],
  ['0', false],
  ['1', true],
]);
const IMPLICIT_TLS_PORT = 465;
const ONE_LINE = { valid: (value: string) => !/[\r\n]/.test(value), expectation: 'must be one line' };
const TIMEOUT = { default: 10, min: 1, max: 300, unit: 'seconds' };

/**
 * The mail settings under the reference's names (PWP__MAIL__* and PWP__NOTIFY_BY_EMAIL__*), so a
 * deployment's mail configuration carries over.
 */
export const MAIL = group({
  title: 'Mail',
  intro:
    "The reference's names, so its mail configuration carries over. Without PWP__MAIL__SMTP_ADDRESS no mail is sent " +
    '(and notify_emails_to is refused with "are not available"); the other PWP__MAIL__ settings are read only with it. ' +
    "Recipients' mails also need PWP__HOST_DOMAIN or PWP__OVERRIDE_BASE_URL: a mailed link never takes its host from a request.",
  settings: {
    smtpAddress: text({
      name: 'PWP__MAIL__SMTP_ADDRESS',
      check: { valid: isHost, expectation: 'must be a host name or IP address, without scheme or port' },
      unset: 'no mail',
      meaning: 'The SMTP server: a host name or IP address, no scheme or port.',
    }),
    smtpPort: integer({
      name: 'PWP__MAIL__SMTP_PORT',
      default: 587,
      min: 1,
      max: 65535,
      meaning: '587 (submission, STARTTLS), 465 (TLS from the first byte) or 25.',
    }),
    sender: text({
      name: 'PWP__MAIL__MAILER_SENDER',
      check: {
        valid: isMailbox,
        expectation: 'must be an email address, optionally with a display name: "Password Pusher" <pwpush@example.com>',
      },
      unset: 'none; required with PWP__MAIL__SMTP_ADDRESS',
      meaning: 'The From of every mail: an address, optionally with a name: "Password Pusher" <pwpush@example.com>.',
    }),
    userName: text({
      name: 'PWP__MAIL__SMTP_USER_NAME',
      check: ONE_LINE,
      unset: 'no sign-in',
      meaning: 'The sign-in, when the server wants one: set both it and the password, or neither.',
    }),
    password: text({
      name: 'PWP__MAIL__SMTP_PASSWORD',
      secret: true,
      check: ONE_LINE,
      unset: 'no sign-in',
      meaning: "The sign-in's password.",
    }),
    authentication: choice({
      name: 'PWP__MAIL__SMTP_AUTHENTICATION',
      values: SMTP_AUTHENTICATIONS,
      unset: "the server's offer decides",
      meaning:
        'How to sign in: plain and login send the password (inside TLS when it is on), cram_md5 answers a challenge; ignored without credentials.',
    }),
    starttls: flag({ name: 'PWP__MAIL__SMTP_STARTTLS', default: false, meaning: 'true: upgrade with STARTTLS or send nothing.' }),
    enableStarttlsAuto: flag({
      name: 'PWP__MAIL__SMTP_ENABLE_STARTTLS_AUTO',
      default: true,
      meaning: 'Upgrade with STARTTLS when the server offers it; false: never.',
    }),
    tls: flag({ name: 'PWP__MAIL__SMTP_TLS', unset: 'true on port 465, false otherwise', meaning: 'TLS from the first byte (SMTPS).' }),
    opensslVerifyMode: choice({
      name: 'PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE',
      values: [...VERIFY_MODES.keys()],
      default: 'peer',
      meaning: "peer checks the server's certificate; none accepts any (e.g. self-signed: the connection can then be intercepted).",
    }),
    domain: text({
      name: 'PWP__MAIL__SMTP_DOMAIN',
      check: { valid: isHost, expectation: 'must be a host name' },
      unset: "this machine's host name",
      meaning: 'The name given in EHLO.',
    }),
    openTimeout: integer({
      name: 'PWP__MAIL__SMTP_OPEN_TIMEOUT',
      ...TIMEOUT,
      meaning: "How long opening the connection may take, up to the server's greeting, before a send fails (and is retried later).",
    }),
    readTimeout: integer({
      name: 'PWP__MAIL__SMTP_READ_TIMEOUT',
      ...TIMEOUT,
      meaning: 'How long the server may then stay silent before a send fails (and is retried later).',
    }),
    hostDomain: text({
      name: 'PWP__HOST_DOMAIN',
      check: { valid: isHostAndPort, expectation: 'must be a host name, optionally with :port, without scheme or path' },
      unset: "PWP__OVERRIDE_BASE_URL's; with neither, no link is mailed (notify_emails_to: \"are not available\", and a warning at start-up)",
      meaning: 'The host (and :port) the links in mails name, as in the reference.',
    }),
    hostProtocol: choice({
      name: 'PWP__HOST_PROTOCOL',
      values: ['https', 'http'],
      default: 'https',
      meaning: 'The scheme of the links in mails, with PWP__HOST_DOMAIN.',
    }),
    notifyByEmail: flag({
      name: 'PWP__NOTIFY_BY_EMAIL__ENABLED',
      default: true,
      meaning: "Recipients' mails (notify_emails_to): false refuses them even with SMTP configured.",
    }),
    dailyLimit: integer({
      name: 'PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT',
      default: 500,
      min: 0,
      max: 1_000_000,
      meaning: "Most recipients' mails one user may cause a day, over all their pushes; 0 blocks them all.",
    }),
  },
});
const M = MAIL.settings;

/** Without a base for links (PWP__HOST_DOMAIN or `overrideBaseUrl`) no link is mailed. */
export function readMailSettings(read: Reader, overrideBaseUrl: string | undefined): MailSettings {
  const smtp = readSmtp(read);
  const sender = read(M.sender);
  if (smtp && sender === undefined) {
    throw new SettingsError(
      'Invalid setting PWP__MAIL__MAILER_SENDER: required when PWP__MAIL__SMTP_ADDRESS is set (the From of every mail, e.g. "Password Pusher" <pwpush@example.com>).',
    );
  }
  const notifyByEmail = { enabled: read(M.notifyByEmail), dailyLimit: read(M.dailyLimit) };
  const hostDomain = read(M.hostDomain);
  const protocol = read(M.hostProtocol);
  const linkBaseUrl = hostDomain === undefined ? overrideBaseUrl : `${protocol}://${hostDomain}`;
  return { smtp, sender, notifyByEmail, emailAvailable: smtp !== undefined && notifyByEmail.enabled && linkBaseUrl !== undefined, linkBaseUrl };
}

/** Why mail that looks configured sends no links, for a warning at start-up; undefined when nothing is amiss. */
export function mailWarning(mail: MailSettings): string | undefined {
  if (mail.smtp === undefined || !mail.notifyByEmail.enabled || mail.linkBaseUrl !== undefined) return undefined;
  return 'Mail to recipients (notify_emails_to) is off: PWP__MAIL__SMTP_ADDRESS is set, but neither PWP__HOST_DOMAIN nor PWP__OVERRIDE_BASE_URL says which host the mailed links name (they are never taken from a request). Set one of them to turn it on.';
}

function readSmtp(read: Reader): SmtpSettings | undefined {
  const host = read(M.smtpAddress);
  if (host === undefined) return undefined;
  const port = read(M.smtpPort);
  return {
    host,
    port,
    heloName: read(M.domain),
    auth: readAuth(read),
    tls: readTls(read, port),
    verifyCertificate: VERIFY_MODES.get(read(M.opensslVerifyMode)) ?? true,
    openTimeoutMs: read(M.openTimeout) * SECOND_MS,
    readTimeoutMs: read(M.readTimeout) * SECOND_MS,
  };
}

/**
 * A user name and a password together, or neither. PWP__MAIL__SMTP_AUTHENTICATION alone is
 * ignored, as the reference ignores it without credentials; unset, the server's offer decides.
 */
function readAuth(read: Reader): SmtpSettings['auth'] {
  const user = read(M.userName);
  const password = read(M.password);
  const method = read(M.authentication);
  if ((user === undefined) !== (password === undefined)) {
    throw new SettingsError(
      'Invalid setting PWP__MAIL__SMTP_PASSWORD: set both PWP__MAIL__SMTP_USER_NAME and PWP__MAIL__SMTP_PASSWORD, or neither.',
    );
  }
  if (user === undefined || password === undefined) return undefined;
  return { user, password, method };
}

/**
 * PWP__MAIL__SMTP_TLS (ours: TLS from the first byte, on by default on port 465, which the
 * reference cannot do), else the reference's STARTTLS pair: SMTP_STARTTLS requires it,
 * SMTP_ENABLE_STARTTLS_AUTO (default true) uses it when the server offers it.
 */
function readTls(read: Reader, port: number): SmtpTls {
  const implicit = read(M.tls) ?? port === IMPLICIT_TLS_PORT;
  const startTlsRequired = read(M.starttls);
  if (implicit && startTlsRequired) {
    throw new SettingsError(
      'Invalid setting PWP__MAIL__SMTP_STARTTLS: TLS from the first byte (PWP__MAIL__SMTP_TLS, or port 465) leaves nothing to upgrade; set one of them.',
    );
  }
  if (implicit) return 'implicit';
  if (startTlsRequired) return 'starttls-required';
  return read(M.enableStarttlsAuto) ? 'starttls-when-offered' : 'none';
}

/** A DNS name or an IP address (IPv6 without brackets): what a socket connects to, nothing more. */
function isHost(value: string): boolean {
  return isHostName(value) || isIP(value) !== 0;
}

/**
 * `user@example.com` or `Display Name <user@example.com>` (the name optionally quoted). Strict
 * enough to catch a mistyped setting at start-up; the SMTP server has the last word.
 */
function isMailbox(value: string): boolean {
  const address = /^[^\s<>"@]+@[^\s<>"@]+\.[^\s<>"@]+$/;
  const named = /^(?:"[^"\r\n]*"|[^"<>\r\n]*)\s*<([^<>]+)>$/.exec(value);
  return address.test(named ? named[1] : value);
}

function isHostAndPort(value: string): boolean {
  const [host, port, ...rest] = value.split(':');
  return rest.length === 0 && isHost(host ?? '') && (port === undefined || (/^\d{1,5}$/.test(port) && Number(port) <= 65535));
}
