import { join } from 'node:path';
import { DatabaseTarget } from './database-url';
import { Env, EnvReader, isCidr, isHttpUrl, Range, SettingsError } from './env-reader';
import { MailSettings, readMailSettings } from './mail-settings';
import { NotificationSettings, readNotificationSettings } from './notification-settings';
import { readWebhookSettings, WebhookSettings } from './webhook-settings';
import { readOidcSettings, SignInSettings } from './oidc-settings';
import { BrandSettings, readBrandSettings } from './brand-settings';

/** The four kinds of push, in the order the reference lists them. */
export const PUSH_KINDS = ['text', 'file', 'url', 'qr'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

export interface Toggle {
  /** Whether a creator may choose this option at all; when false it is forced off. */
  enabled: boolean;
  /** The value used when the creator does not say. */
  default: boolean;
}

export interface KindSettings {
  enabled: boolean;
  expireAfterDays: Range;
  expireAfterViews: Range;
  retrievalStep: Toggle;
  deletableByViewer: Toggle;
}

export type { DatabaseTarget, MysqlTarget } from './database-url';
export { type Env, type Range, SettingsError, formatBytes } from './env-reader';
export { type MailSettings, type SmtpAuthentication, type SmtpSettings, type SmtpTls, SMTP_AUTHENTICATIONS } from './mail-settings';
export type { WebhookSettings } from './webhook-settings';
export type { NotificationSettings } from './notification-settings';
export { type BrandSettings, DEFAULT_BRAND_TITLE } from './brand-settings';
export type { OidcClientAuth, OidcSettings, PrivateKeyJwtAlgorithm, SignInSettings } from './oidc-settings';

/** Where file attachments are kept: a directory (one replica), or an S3-compatible bucket (any number). */
export type FileStorage =
  | { type: 'local'; dir: string }
  | {
      type: 's3';
      bucket: string;
      region: string;
      /** For S3-compatible services (MinIO, Ceph, versitygw, ...); AWS when unset. */
      endpoint?: string;
      forcePathStyle: boolean;
      /** Both or neither; without them the SDK's default chain (IAM role, IRSA, env) is used. */
      credentials?: { accessKeyId: string; secretAccessKey: string };
      /** Prefix of every object key, so a bucket can be shared. */
      prefix: string;
    };

export interface FileSettings {
  /** Most files per push. */
  maxUploads: number;
  /** Largest file, and most bytes of files in one push. */
  maxFileBytes: number;
  maxPushBytes: number;
  /** Largest JSON request body: base64 files must fit in it (4/3 of their size), and it is read into memory. */
  maxJsonBodyBytes: number;
  /** How long a download link from a retrieval works; also the grace the last view's links get. */
  linkLifetimeSeconds: number;
  storage: FileStorage;
}

/** How long the server waits for a client, and how much of request bodies it holds in memory at once. */
export interface HttpSettings {
  /** The request line and headers must have arrived within this. */
  headersTimeoutMs: number;
  /** A body read into memory must have arrived within this; a file upload may not pause longer than this. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open; above the proxy's own, so the proxy closes first. */
  keepAliveTimeoutMs: number;
  /** Most bytes of request bodies being read (and held) at once by the process; more get a 503. */
  maxBodyBytesInFlight: number;
}

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
  /** The reference's legacy API v1 (`/p.json`, ...); off, its routes answer 404 (its version endpoint stays). */
  apiV1Enabled: boolean;
  /** Whether `expire_after_duration` may choose the lifetimes under a day (15 minutes to 12 hours). */
  allowSubdayExpiry: boolean;
  kinds: Record<PushKind, KindSettings>;
  files: FileSettings;
  /** Peers (and X-Forwarded-For hops) whose X-Forwarded-* headers are believed: addresses and CIDR ranges. */
  trustedProxies: string[];
  /** Only https reaches the service: plain-http requests are redirected (GET, HEAD) or refused. */
  forceSsl: boolean;
  passphraseAttemptsPerMinute: number;
  auditMaxEntriesPerPush: number;
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
  /** The instance's title, tagline, disclaimer, footer menu and logos on every page. */
  brand: BrandSettings;
}

const MASTER_KEY_REQUIRED =
  'Invalid setting PWPUSH_MASTER_KEY: required when NODE_ENV=production (64 hex characters, e.g. from `openssl rand -hex 32`).';

// The service speaks plain HTTP: it learns that a request came over https only from a trusted
// proxy's X-Forwarded-Proto, so without one FORCE_SSL would redirect every request, forever.
const FORCE_SSL_NEEDS_PROXY =
  'Invalid setting FORCE_SSL: needs TRUST_PROXY (or PWP__TRUSTED_PROXIES) naming the TLS-terminating proxy, whose X-Forwarded-Proto says which requests came over https.';

/** Anything else (`prod`, `staging`) would quietly run as development: a generated key per replica. */
const NODE_ENVS = new Set(['production', 'development', 'test']);
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const MASTER_KEY = /^[0-9a-fA-F]{64}$/;

/** Reads one environment snapshot into typed settings, or throws naming the first bad variable. */
export function loadSettings(env: Env): Settings {
  const read = new EnvReader(env);
  const dataDir = read.string('DATA_DIR', 'data');
  const settings: Settings = {
    production: read.optional('NODE_ENV', (v) => NODE_ENVS.has(v), 'must be production, development or test (unset: development)') === 'production',
    port: read.int('PORT', 5100, 0, 65535),
    shutdownTimeoutMs: read.int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    http: readHttp(read),
    database: read.database('DATABASE_URL', 'sqlite:data/pwpush.sqlite3'),
    migrateOnStart: read.bool('DB_MIGRATE_ON_START', true),
    dataDir,
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    masterKey: read.optional('PWPUSH_MASTER_KEY', (v) => MASTER_KEY.test(v), 'must be 64 hexadecimal characters'),
    previousMasterKeys: read.list('PWPUSH_MASTER_KEY_PREVIOUS', (v) => MASTER_KEY.test(v), 'must be comma-separated 64-hex-character keys'),
    overrideBaseUrl: read.optional('PWP__OVERRIDE_BASE_URL', isHttpUrl, 'must be an absolute http(s) URL')?.replace(/\/+$/, ''),
    allowAnonymous: read.bool('PWP__ALLOW_ANONYMOUS', true),
    apiV1Enabled: read.bool('PWP__API_V1__ENABLED', true),
    allowSubdayExpiry: read.bool('PWP__ALLOW_SUBDAY_EXPIRY', true),
    kinds: {
      text: readKind(read, 'PW', true),
      file: readKind(read, 'FILES', read.bool('PWP__ENABLE_FILE_PUSHES', true)),
      url: readKind(read, 'URL', read.bool('PWP__ENABLE_URL_PUSHES', true)),
      qr: readKind(read, 'QR', read.bool('PWP__ENABLE_QR_PUSHES', true)),
    },
    files: readFiles(read, dataDir),
    trustedProxies: readTrustedProxies(read),
    forceSsl: read.bool('FORCE_SSL', false),
    passphraseAttemptsPerMinute: 5,
    auditMaxEntriesPerPush: read.int('AUDIT_MAX_ENTRIES_PER_PUSH', 2000, 10, 1_000_000),
    expirySweep: {
      enabled: read.bool('EXPIRY_SWEEP_ENABLED', true),
      intervalSeconds: read.int('EXPIRY_SWEEP_INTERVAL_SECONDS', 60, 1, 86_400),
      batchSize: read.int('EXPIRY_SWEEP_BATCH_SIZE', 2000, 1, 50_000),
    },
    purgeAfterMs: read.duration('PWP__PURGE_AFTER'),
    databaseTimeouts: {
      connectMs: read.int('DB_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
      queryMs: read.int('DB_QUERY_TIMEOUT_MS', 10_000, 100, 3_600_000),
    },
    throttling: {
      perMinute: read.int('PWP__THROTTLING__MINUTE', 120, 0, 1_000_000_000),
      perSecond: read.int('PWP__THROTTLING__SECOND', 60, 0, 1_000_000_000),
    },
    redis: readRedis(read),
    metricsToken: read.optional('METRICS_TOKEN', (v) => !/\s/.test(v), 'must not contain whitespace'),
    metricsPort: read.optionalInt('METRICS_PORT', 0, 65535),
    corsOrigins: read.list('CORS_ORIGINS', isOrigin, 'must be comma-separated origins such as https://app.example.com, or *').map((o) => o.replace(/\/$/, '')),
    mail: readMailSettings(read),
    webhooks: readWebhookSettings(read),
    notifications: readNotificationSettings(read),
    signIn: readOidcSettings(read),
    brand: readBrandSettings(read),
  };
  // Checked here, before anything starts, so the operator gets one clear line.
  if (settings.production && !settings.masterKey) throw new SettingsError(MASTER_KEY_REQUIRED);
  if (settings.forceSsl && settings.trustedProxies.length === 0) throw new SettingsError(FORCE_SSL_NEEDS_PROXY);
  if (settings.metricsPort && settings.metricsPort === settings.port) {
    throw new SettingsError('Invalid setting METRICS_PORT: must differ from PORT (or be unset, serving /metrics on PORT).');
  }
  return settings;
}

/**
 * TRUST_PROXY and the reference's PWP__TRUSTED_PROXIES, both read (their union): addresses and
 * CIDR ranges separated by commas or spaces. Unset trusts nobody (see README, "Behind a proxy or
 * ingress"); 0.0.0.0/0 and ::/0 mean every peer.
 */
function readTrustedProxies(read: EnvReader): string[] {
  const expectation = 'must be IP addresses or CIDR ranges separated by commas or spaces';
  return [...new Set(['TRUST_PROXY', 'PWP__TRUSTED_PROXIES'].flatMap((name) => read.list(name, isCidr, expectation, /[\s,]+/)))];
}

function readKind(read: EnvReader, prefix: string, enabled: boolean): KindSettings {
  const p = `PWP__${prefix}__`;
  return {
    enabled,
    expireAfterDays: read.range(`${p}EXPIRE_AFTER_DAYS`, { default: 7, min: 1, max: 90 }),
    expireAfterViews: read.range(`${p}EXPIRE_AFTER_VIEWS`, { default: 5, min: 1, max: 100 }),
    retrievalStep: { enabled: read.bool(`${p}ENABLE_RETRIEVAL_STEP`, true), default: read.bool(`${p}RETRIEVAL_STEP_DEFAULT`, true) },
    deletableByViewer: {
      enabled: read.bool(`${p}ENABLE_DELETABLE_PUSHES`, true),
      default: read.bool(`${p}DELETABLE_PUSHES_DEFAULT`, true),
    },
  };
}

const MIB = 1024 * 1024;

/**
 * The defaults fit an API behind a proxy: headers come at once, JSON bodies are at most a few MiB,
 * the ingress (nginx keeps upstream connections 60 s) closes idle connections before we do, and
 * the body budget keeps 100 concurrent maximum bodies within the chart's 512 MiB (see README, Body limits).
 */
function readHttp(read: EnvReader): HttpSettings {
  return {
    headersTimeoutMs: read.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: read.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 600_000),
    maxBodyBytesInFlight: read.bytes('PWP__MAX_BODY_BYTES_IN_FLIGHT', 48 * MIB, 1024, 64 * 1024 * MIB),
  };
}

function readFiles(read: EnvReader, dataDir: string): FileSettings {
  const maxFileBytes = read.bytes('PWP__FILES__MAX_FILE_SIZE', 100 * MIB, 1, 64 * 1024 * MIB);
  return {
    maxUploads: read.int('PWP__FILES__MAX_FILE_UPLOADS', 10, 1, 100),
    maxFileBytes,
    maxPushBytes: read.bytes('PWP__FILES__MAX_PUSH_SIZE', Math.max(500 * MIB, maxFileBytes), maxFileBytes, 256 * 1024 * MIB),
    maxJsonBodyBytes: read.bytes('PWP__FILES__MAX_JSON_BODY_SIZE', 32 * MIB, 16 * MIB, 1024 * MIB),
    linkLifetimeSeconds: read.int('PWP__FILES__LINK_LIFETIME_SECONDS', 300, 10, 86_400),
    storage: readFileStorage(read, dataDir),
  };
}

/** The reference's names: PWP__FILES__STORAGE (`local` or `amazon`) and PWP__FILES__S3__*. */
function readFileStorage(read: EnvReader, dataDir: string): FileStorage {
  const type = read.oneOf('PWP__FILES__STORAGE', 'local', new Set(['local', 'amazon', 's3']));
  if (type === 'local') return { type: 'local', dir: join(dataDir, 'files') };
  const bucket = read.optional('PWP__FILES__S3__BUCKET', (v) => /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(v), 'must be an S3 bucket name');
  if (bucket === undefined) throw new SettingsError('Invalid setting PWP__FILES__S3__BUCKET: required when PWP__FILES__STORAGE is amazon.');
  const accessKeyId = read.optional('PWP__FILES__S3__ACCESS_KEY_ID', (v) => !/\s/.test(v), 'must not contain whitespace');
  const secretAccessKey = read.optional('PWP__FILES__S3__SECRET_ACCESS_KEY', (v) => !/\s/.test(v), 'must not contain whitespace');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new SettingsError('Invalid setting PWP__FILES__S3__SECRET_ACCESS_KEY: set both PWP__FILES__S3__ACCESS_KEY_ID and PWP__FILES__S3__SECRET_ACCESS_KEY, or neither.');
  }
  return {
    type: 's3',
    bucket,
    region: read.string('PWP__FILES__S3__REGION', 'us-east-1'),
    endpoint: read.optional('PWP__FILES__S3__ENDPOINT', isHttpUrl, 'must be an absolute http(s) URL'),
    forcePathStyle: read.bool('PWP__FILES__S3__FORCE_PATH_STYLE', false),
    credentials: accessKeyId === undefined || secretAccessKey === undefined ? undefined : { accessKeyId, secretAccessKey },
    prefix: read.optional('PWP__FILES__S3__PREFIX', (v) => /^[\w./-]{0,200}$/.test(v), 'must be letters, digits, . / _ -') ?? '',
  };
}

function readRedis(read: EnvReader): Settings['redis'] {
  const url = read.optional('REDIS_URL', isRedisUrl, 'must be redis://[:password@]host[:port][/db] or rediss://...');
  const keyPrefix = read.optional('REDIS_KEY_PREFIX', (v) => /^[\w:.{}-]{1,64}$/.test(v), 'must be 1-64 letters, digits or _ : . - { }') ?? 'pwpush:';
  return url === undefined ? undefined : { url, keyPrefix };
}

function isRedisUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
}

/** An origin as browsers send it: scheme://host[:port], nothing after; or * for any. */
function isOrigin(value: string): boolean {
  if (value === '*') return true;
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
}

