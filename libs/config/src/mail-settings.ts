import { isIP } from 'node:net';
import { EnvReader, isHostName, SettingsError } from './env-reader';

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
  /** Mail is configured and the feature is on: the version endpoint's `email_auto_dispatch`. */
  emailAvailable: boolean;
  /**
   * The base of the links mails carry, from the reference's PWP__HOST_DOMAIN (and
   * PWP__HOST_PROTOCOL, default https); unset, they are the API's own links.
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

/**
 * The mail settings under the reference's names (PWP__MAIL__* and PWP__NOTIFY_BY_EMAIL__*), so a
 * deployment's mail configuration carries over. Without PWP__MAIL__SMTP_ADDRESS no mail is sent.
 */
export function readMailSettings(read: EnvReader): MailSettings {
  const smtp = readSmtp(read);
  const sender = read.optional('PWP__MAIL__MAILER_SENDER', isMailbox, 'must be an email address, optionally with a display name: "Password Pusher" <pwpush@example.com>');
  if (smtp && sender === undefined) {
    throw new SettingsError('Invalid setting PWP__MAIL__MAILER_SENDER: required when PWP__MAIL__SMTP_ADDRESS is set (the From of every mail, e.g. "Password Pusher" <pwpush@example.com>).');
  }
  const notifyByEmail = {
    enabled: read.bool('PWP__NOTIFY_BY_EMAIL__ENABLED', true),
    dailyLimit: read.int('PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT', 500, 0, 1_000_000),
  };
  const hostDomain = read.optional('PWP__HOST_DOMAIN', isHostAndPort, 'must be a host name, optionally with :port, without scheme or path');
  const protocol = read.oneOf('PWP__HOST_PROTOCOL', 'https', new Set(['https', 'http']));
  const linkBaseUrl = hostDomain === undefined ? undefined : `${protocol}://${hostDomain}`;
  return { smtp, sender, notifyByEmail, emailAvailable: smtp !== undefined && notifyByEmail.enabled, linkBaseUrl };
}

function readSmtp(read: EnvReader): SmtpSettings | undefined {
  const host = read.optional('PWP__MAIL__SMTP_ADDRESS', isHost, 'must be a host name or IP address, without scheme or port');
  if (host === undefined) return undefined;
  const port = read.int('PWP__MAIL__SMTP_PORT', 587, 1, 65535);
  return {
    host,
    port,
    heloName: read.optional('PWP__MAIL__SMTP_DOMAIN', isHost, 'must be a host name'),
    auth: readAuth(read),
    tls: readTls(read, port),
    verifyCertificate: VERIFY_MODES.get(read.oneOf('PWP__MAIL__SMTP_OPENSSL_VERIFY_MODE', 'peer', new Set(VERIFY_MODES.keys()))) ?? true,
    openTimeoutMs: read.int('PWP__MAIL__SMTP_OPEN_TIMEOUT', 10, 1, 300) * SECOND_MS,
    readTimeoutMs: read.int('PWP__MAIL__SMTP_READ_TIMEOUT', 10, 1, 300) * SECOND_MS,
  };
}

/**
 * A user name and a password together, or neither. PWP__MAIL__SMTP_AUTHENTICATION alone is
 * ignored, as the reference ignores it without credentials; unset, the server's offer decides.
 */
function readAuth(read: EnvReader): SmtpSettings['auth'] {
  const user = read.optional('PWP__MAIL__SMTP_USER_NAME', isOneLine, 'must be one line');
  const password = read.optional('PWP__MAIL__SMTP_PASSWORD', isOneLine, 'must be one line');
  const method = read.optional('PWP__MAIL__SMTP_AUTHENTICATION', isAuthentication, `must be one of ${SMTP_AUTHENTICATIONS.join(', ')}`);
  if ((user === undefined) !== (password === undefined)) {
    throw new SettingsError('Invalid setting PWP__MAIL__SMTP_PASSWORD: set both PWP__MAIL__SMTP_USER_NAME and PWP__MAIL__SMTP_PASSWORD, or neither.');
  }
  if (user === undefined || password === undefined) return undefined;
  return { user, password, method: method?.toLowerCase() as SmtpAuthentication | undefined };
}

/**
 * PWP__MAIL__SMTP_TLS (ours: TLS from the first byte, on by default on port 465, which the
 * reference cannot do), else the reference's STARTTLS pair: SMTP_STARTTLS requires it,
 * SMTP_ENABLE_STARTTLS_AUTO (default true) uses it when the server offers it.
 */
function readTls(read: EnvReader, port: number): SmtpTls {
  const implicit = read.bool('PWP__MAIL__SMTP_TLS', port === IMPLICIT_TLS_PORT);
  const startTlsRequired = read.bool('PWP__MAIL__SMTP_STARTTLS', false);
  if (implicit && startTlsRequired) {
    throw new SettingsError('Invalid setting PWP__MAIL__SMTP_STARTTLS: TLS from the first byte (PWP__MAIL__SMTP_TLS, or port 465) leaves nothing to upgrade; set one of them.');
  }
  if (implicit) return 'implicit';
  if (startTlsRequired) return 'starttls-required';
  return read.bool('PWP__MAIL__SMTP_ENABLE_STARTTLS_AUTO', true) ? 'starttls-when-offered' : 'none';
}

const isOneLine = (value: string): boolean => !/[\r\n]/.test(value);
const isAuthentication = (value: string): boolean => (SMTP_AUTHENTICATIONS as readonly string[]).includes(value.toLowerCase());

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
