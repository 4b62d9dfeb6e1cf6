import { AccountSettings, checkAccountEmailsHaveMail, readAccountSettings } from './account-settings';
import { API } from './api-settings';
import { AUDIT } from './audit-settings';
import { BrandSettings, readBrandSettings } from './brand-settings';
import { DATABASE } from './database-settings';
import { DatabaseTarget } from './database-url';
import { checkMasterKeyInProduction, ENCRYPTION } from './encryption-settings';
import { Env, readerOf } from './env-reader';
import { EXPIRY } from './expiry-settings';
import { FileSettings, readFiles } from './file-settings';
import { HTTP, HttpSettings, readHttp } from './http-settings';
import { MailSettings, mailWarning, readMailSettings } from './mail-settings';
import { checkMetricsPortIsOwn, METRICS } from './metrics-settings';
import { NotificationSettings, readNotificationSettings } from './notification-settings';
import { readOidcSettings, SignInSettings } from './oidc-settings';
import { PROCESS } from './process-settings';
import { checkForceSslHasProxy, PROXY, readTrustedProxies } from './proxy-settings';
import { checkDefaultLocaleEnabled, LanguageSettings, readLanguages } from './language-settings';
import { KindSettings, PushKind, readKinds } from './push-kind-settings';
import { PAGES, PageSettings } from './page-settings';
import { RATE_LIMITS } from './rate-limit-settings';
import { readRedis } from './redis-settings';
import { REQUESTS } from './request-settings';
import { WebhookSettings, readWebhookSettings } from './webhook-settings';

export type { DatabaseTarget, MysqlTarget } from './database-url';
export { type Env, SettingsError, formatBytes } from './env-reader';
export type { Range } from './setting';
export { PUSH_KINDS, type KindSettings, type PushKind, type Toggle } from './push-kind-settings';
export type { HttpSettings } from './http-settings';
export type { FileSettings } from './file-settings';
export type { FileStorage } from './storage-settings';
export { type MailSettings, type SmtpAuthentication, type SmtpSettings, type SmtpTls, SMTP_AUTHENTICATIONS } from './mail-settings';
export type { WebhookSettings } from './webhook-settings';
export type { NotificationSettings } from './notification-settings';
export { type BrandSettings, DEFAULT_BRAND_TITLE } from './brand-settings';
export type { AccountSettings } from './account-settings';
export { LANGUAGE_CODES, type LanguageCode, type LanguageSettings, languageCode } from './language-settings';
export { type PageSettings, type ThemeMode, THEME_MODES } from './page-settings';
export type { OidcClientAuth, OidcSettings, PrivateKeyJwtAlgorithm, SignInSettings } from './oidc-settings';

export interface Settings {
  production: boolean;
  port: number;
  shutdownTimeoutMs: number;
  http: HttpSettings;
  database: DatabaseTarget;
  migrateOnStart: boolean;
  dataDir: string;
  logLevel: string;
  masterKey?: string;
  previousMasterKeys: string[];
  overrideBaseUrl?: string;
  allowAnonymous: boolean;
  /**
   * URL pushes only from accounts (PWP__URL__REQUIRE_ACCOUNT): an anonymous URL push is a redirect
   * from the instance's own domain to anywhere, which phishing can borrow.
   */
  urlPushesRequireAccount: boolean;
  /** The reference's legacy API v1 (`/p.json`, ...); off, its routes answer 404 (its version endpoint stays). */
  apiV1Enabled: boolean;
  /** Whether `expire_after_duration` may choose the lifetimes under a day (15 minutes to 12 hours). */
  allowSubdayExpiry: boolean;
  kinds: Record<PushKind, KindSettings>;
  /** Secret requests (PWP__ENABLE_REQUESTS): off, none of their routes or pages exist. */
  requests: { enabled: boolean };
  files: FileSettings;
  /** Peers (and X-Forwarded-For hops) whose X-Forwarded-* headers are believed: addresses and CIDR ranges. */
  trustedProxies: string[];
  /** Only https reaches the service: plain-http requests are redirected (GET, HEAD) or refused. */
  forceSsl: boolean;
  passphraseAttemptsPerMinute: number;
  auditMaxEntriesPerPush: number;
  /** PWP__AUDIT__STDOUT: each audit entry and security event also as a JSON line on standard output. */
  auditStdout: boolean;
  expirySweep: { enabled: boolean; intervalSeconds: number; batchSize: number };
  /** Expired pushes older than this many milliseconds are deleted; undefined keeps them. */
  purgeAfterMs?: number;
  /** Bounds on waiting for the database, so an outage gives quick 503s instead of hung requests. */
  databaseTimeouts: { connectMs: number; queryMs: number };
  /** Requests per client IP and window; 0 turns that window's limit off. */
  throttling: { perMinute: number; perSecond: number };
  /** Shared counters (rate limits, passphrase attempts) for replicas; without it they are per process. */
  redis?: { url: string; keyPrefix: string };
  /** Bearer token required on /metrics when set. */
  metricsToken?: string;
  /** When set, /metrics is served on this port alone (and not on `port`), out of an ingress's reach. */
  metricsPort?: number;
  /** Browser origins allowed by CORS; empty means no CORS headers at all. */
  corsOrigins: string[];
  /** SMTP, the sender, and the recipients' notification mails. */
  mail: MailSettings;
  /** Where webhooks may be delivered (https, no private addresses unless allowed) and how long an attempt may take. */
  webhooks: WebhookSettings;
  /** The outbox worker: its pace, and how long a failing delivery is retried. */
  notifications: NotificationSettings;
  /** How people sign in on the pages: password, single sign-on (OpenID Connect), or both. */
  signIn: SignInSettings;
  /** Sign-up, account emails, sign-in pages, sessions' timeout, two-factor required. */
  accounts: AccountSettings;
  /** The instance's title, tagline, disclaimer, footer menu and logos on every page. */
  brand: BrandSettings;
  /** Which languages the pages and mails may speak, and the default. */
  languages: LanguageSettings;
  /** Search engines, colour scheme and blurred payloads on the pages. */
  pages: PageSettings;
}

/**
 * Reads one environment snapshot into typed settings, or throws naming the first bad variable.
 * Each value comes from its group's table (*-settings.ts); the rules that tie settings of
 * different groups together are checked last, before anything starts.
 */
export function loadSettings(env: Env): Settings {
  const read = readerOf(env);
  const dataDir = read(PROCESS.settings.dataDir);
  const overrideBaseUrl = read(HTTP.settings.overrideBaseUrl)?.replace(/\/+$/, '');
  const settings: Settings = {
    production: read(PROCESS.settings.nodeEnv) === 'production',
    port: read(PROCESS.settings.port),
    shutdownTimeoutMs: read(PROCESS.settings.shutdownTimeoutMs),
    http: readHttp(read),
    database: read(DATABASE.settings.url),
    migrateOnStart: read(DATABASE.settings.migrateOnStart),
    dataDir,
    logLevel: read(PROCESS.settings.logLevel),
    masterKey: read(ENCRYPTION.settings.masterKey),
    previousMasterKeys: read(ENCRYPTION.settings.previousMasterKeys),
    overrideBaseUrl,
    ...read.all(API),
    kinds: readKinds(read),
    requests: read.all(REQUESTS),
    files: readFiles(read, dataDir),
    trustedProxies: readTrustedProxies(read),
    forceSsl: read(PROXY.settings.forceSsl),
    passphraseAttemptsPerMinute: 5,
    auditMaxEntriesPerPush: read(AUDIT.settings.maxEntriesPerPush),
    auditStdout: read(AUDIT.settings.stdout),
    expirySweep: {
      enabled: read(EXPIRY.settings.enabled),
      intervalSeconds: read(EXPIRY.settings.intervalSeconds),
      batchSize: read(EXPIRY.settings.batchSize),
    },
    purgeAfterMs: read(EXPIRY.settings.purgeAfter),
    databaseTimeouts: { connectMs: read(DATABASE.settings.connectTimeoutMs), queryMs: read(DATABASE.settings.queryTimeoutMs) },
    throttling: read.all(RATE_LIMITS),
    redis: readRedis(read),
    metricsToken: read(METRICS.settings.token),
    metricsPort: read(METRICS.settings.port),
    corsOrigins: read(HTTP.settings.corsOrigins).map((o) => o.replace(/\/$/, '')),
    mail: readMailSettings(read, overrideBaseUrl),
    webhooks: readWebhookSettings(read),
    notifications: readNotificationSettings(read),
    signIn: readOidcSettings(read),
    accounts: readAccountSettings(read),
    brand: readBrandSettings(read),
    languages: readLanguages(read),
    pages: read.all(PAGES),
  };
  checkMasterKeyInProduction(settings.production, settings.masterKey);
  checkForceSslHasProxy(settings.forceSsl, settings.trustedProxies);
  checkMetricsPortIsOwn(settings.metricsPort, settings.port);
  checkAccountEmailsHaveMail(settings.accounts, settings.mail, settings.overrideBaseUrl);
  checkDefaultLocaleEnabled(settings.languages);
  return settings;
}

/** What the operator should hear at start-up about valid settings that likely do not do what was meant (one line each). */
export function settingsWarnings(settings: Settings): string[] {
  return [mailWarning(settings.mail)].filter((warning) => warning !== undefined);
}
