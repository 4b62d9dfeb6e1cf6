import { Env, loadSettings } from './settings';
import { settingsErrorFor } from './settings.testing';

const KEY = 'ab'.repeat(32);


describe('loadSettings', () => {
  describe('defaults', () => {
    const sut = loadSettings({});

    it('serves on 5100 from a SQLite file under data/, migrating on start', () => {
      expect(sut).toMatchObject({
        production: false,
        port: 5100,
        database: { type: 'sqlite', path: 'data/pwpush.sqlite3' },
        migrateOnStart: true,
        dataDir: 'data',
        logLevel: 'info',
        previousMasterKeys: [],
        allowAnonymous: true,
        urlPushesRequireAccount: false,
        apiV1Enabled: true,
        allowSubdayExpiry: true,
        trustedProxies: [],
        passphraseAttemptsPerMinute: 5,
      });
      expect(sut.masterKey).toBeUndefined();
      expect(sut.overrideBaseUrl).toBeUndefined();
    });

    it('enables every kind (as the reference 2.11.4 does), with the reference ranges and toggles', () => {
      expect(Object.fromEntries(Object.entries(sut.kinds).map(([kind, rules]) => [kind, rules.enabled]))).toEqual({
        text: true,
        file: true,
        url: true,
        qr: true,
      });
      for (const rules of Object.values(sut.kinds)) {
        expect(rules).toMatchObject({
          expireAfterDays: { default: 7, min: 1, max: 90 },
          expireAfterViews: { default: 5, min: 1, max: 100 },
          retrievalStep: { enabled: true, default: true },
          deletableByViewer: { enabled: true, default: true },
        });
      }
    });

    it('waits 10 s for headers, 30 s for a body, keeps idle connections 65 s and reads 48 MiB of bodies at once', () => {
      expect(sut.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000, maxBodyBytesInFlight: 48 * 1024 * 1024 });
    });

    it('reads the HTTP timeouts and the body budget', () => {
      const env = { HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '120000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000', PWP__MAX_BODY_BYTES_IN_FLIGHT: '128MiB' };
      expect(loadSettings(env).http).toEqual({ headersTimeoutMs: 500, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 2000, maxBodyBytesInFlight: 128 * 1024 * 1024 });
    });

    it('treats empty and blank values as unset', () => {
      expect(loadSettings({ PORT: '', PWP__ALLOW_ANONYMOUS: '   ', DATABASE_URL: '' })).toMatchObject({
        port: 5100,
        allowAnonymous: true,
        database: { type: 'sqlite', path: 'data/pwpush.sqlite3' },
      });
    });
  });

  describe('values it accepts', () => {
    it.each([
      ['true', true],
      ['TRUE', true],
      ['1', true],
      ['yes', true],
      [' on ', true],
      ['false', false],
      ['0', false],
      ['No', false],
      ['off', false],
    ])('reads the boolean %j as %s', (value, expected) => {
      expect(loadSettings({ PWP__ALLOW_ANONYMOUS: value }).allowAnonymous).toBe(expected);
    });

    it('keeps anonymous URL pushes out with PWP__URL__REQUIRE_ACCOUNT=true', () => {
      expect(loadSettings({ PWP__URL__REQUIRE_ACCOUNT: 'true' }).urlPushesRequireAccount).toBe(true);
    });

    it('turns API v1 and the lifetimes under a day off by their settings', () => {
      expect(loadSettings({ PWP__API_V1__ENABLED: 'false', PWP__ALLOW_SUBDAY_EXPIRY: 'false' })).toMatchObject({ apiV1Enabled: false, allowSubdayExpiry: false });
    });

    it('reads each kind from its own prefix', () => {
      const sut = loadSettings({
        PWP__ENABLE_URL_PUSHES: 'true',
        PWP__URL__EXPIRE_AFTER_DAYS_DEFAULT: '2',
        PWP__QR__EXPIRE_AFTER_VIEWS_MAX: '10',
        PWP__PW__ENABLE_RETRIEVAL_STEP: 'false',
        PWP__PW__DELETABLE_PUSHES_DEFAULT: 'false',
      });
      expect(sut.kinds.url).toMatchObject({ enabled: true, expireAfterDays: { default: 2, min: 1, max: 90 } });
      expect(sut.kinds.qr.expireAfterViews).toEqual({ default: 5, min: 1, max: 10 });
      expect(sut.kinds.text.retrievalStep).toEqual({ enabled: false, default: true });
      expect(sut.kinds.text.deletableByViewer).toEqual({ enabled: true, default: false });
    });

    it('turns file pushes off with PWP__ENABLE_FILE_PUSHES=false', () => {
      expect(loadSettings({ PWP__ENABLE_FILE_PUSHES: 'false' }).kinds.file.enabled).toBe(false);
    });

    it('moves the default into a narrowed range when only MIN or MAX is set', () => {
      const sut = loadSettings({ PWP__PW__EXPIRE_AFTER_DAYS_MIN: '10', PWP__PW__EXPIRE_AFTER_VIEWS_MAX: '3' });
      expect(sut.kinds.text.expireAfterDays).toEqual({ default: 10, min: 10, max: 90 });
      expect(sut.kinds.text.expireAfterViews).toEqual({ default: 3, min: 1, max: 3 });
    });

    it.each([
      ['production', true],
      ['development', false],
      ['test', false],
      [undefined, false],
    ])('reads NODE_ENV=%s as production: %s', (value, production) => {
      expect(loadSettings({ NODE_ENV: value, PWPUSH_MASTER_KEY: KEY }).production).toBe(production);
    });

    it('refuses production without PWPUSH_MASTER_KEY before anything starts', () => {
      expect(() => loadSettings({ NODE_ENV: 'production' })).toThrow(/^Invalid setting PWPUSH_MASTER_KEY: required when NODE_ENV=production/);
      expect(loadSettings({ NODE_ENV: 'development' }).masterKey).toBeUndefined();
    });

    it('reads master keys, trusted proxies and the base URL', () => {
      const previous = 'CD'.repeat(32);
      const sut = loadSettings({
        NODE_ENV: 'production',
        PWPUSH_MASTER_KEY: KEY,
        PWPUSH_MASTER_KEY_PREVIOUS: ` ${previous} , ${'01'.repeat(32)} `,
        TRUST_PROXY: '10.0.0.0/8, 127.0.0.1, ::1, fd00::/64',
        PWP__OVERRIDE_BASE_URL: 'https://pwpush.example.com//',
      });
      expect(sut).toMatchObject({
        production: true,
        masterKey: KEY,
        previousMasterKeys: [previous, '01'.repeat(32)],
        trustedProxies: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/64'],
        overrideBaseUrl: 'https://pwpush.example.com',
      });
    });
  });

  describe('every bad value stops start-up, naming its variable', () => {
    it.each<[string, Env, string]>([
      ['a bad boolean', { PWP__ALLOW_ANONYMOUS: 'maybe' }, 'PWP__ALLOW_ANONYMOUS'],
      ['a bad per-kind boolean', { PWP__URL__ENABLE_RETRIEVAL_STEP: 'sometimes' }, 'PWP__URL__ENABLE_RETRIEVAL_STEP'],
      ['a bad boolean toggle', { PWP__ENABLE_QR_PUSHES: '2' }, 'PWP__ENABLE_QR_PUSHES'],
      ['a word for an integer', { PORT: 'eighty' }, 'PORT'],
      ['a decimal for an integer', { PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT: '5.5' }, 'PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT'],
      ['hex for an integer', { PWP__FILES__MAX_FILE_UPLOADS: '0x10' }, 'PWP__FILES__MAX_FILE_UPLOADS'],
      ['an exponent for an integer', { PWP__PW__EXPIRE_AFTER_VIEWS_MAX: '1e2' }, 'PWP__PW__EXPIRE_AFTER_VIEWS_MAX'],
      ['an integer beyond the safe range', { PORT: '99999999999999999999' }, 'PORT'],
      ['a port out of range', { PORT: '65536' }, 'PORT'],
      ['a negative port', { PORT: '-1' }, 'PORT'],
      ['a MAX over the hard limit', { PWP__PW__EXPIRE_AFTER_VIEWS_MAX: '1000' }, 'PWP__PW__EXPIRE_AFTER_VIEWS_MAX'],
      ['a MIN under the hard limit', { PWP__QR__EXPIRE_AFTER_DAYS_MIN: '0' }, 'PWP__QR__EXPIRE_AFTER_DAYS_MIN'],
      ['MIN > MAX', { PWP__URL__EXPIRE_AFTER_DAYS_MIN: '10', PWP__URL__EXPIRE_AFTER_DAYS_MAX: '5' }, 'PWP__URL__EXPIRE_AFTER_DAYS_MAX'],
      [
        'DEFAULT above MAX',
        { PWP__PW__EXPIRE_AFTER_VIEWS_MIN: '3', PWP__PW__EXPIRE_AFTER_VIEWS_MAX: '10', PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT: '20' },
        'PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT',
      ],
      ['DEFAULT below MIN', { PWP__PW__EXPIRE_AFTER_DAYS_MIN: '5', PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT: '2' }, 'PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT'],
      ['a bad DATABASE_URL', { DATABASE_URL: 'oracle://db/pwpush' }, 'DATABASE_URL'],
      ['a short master key', { PWPUSH_MASTER_KEY: 'abc123' }, 'PWPUSH_MASTER_KEY'],
      ['a master key that is not hex', { PWPUSH_MASTER_KEY: 'g'.repeat(64) }, 'PWPUSH_MASTER_KEY'],
      ['a master key of 65 characters', { PWPUSH_MASTER_KEY: `${KEY}0` }, 'PWPUSH_MASTER_KEY'],
      ['a bad previous master key', { PWPUSH_MASTER_KEY: KEY, PWPUSH_MASTER_KEY_PREVIOUS: `${KEY},nothex` }, 'PWPUSH_MASTER_KEY_PREVIOUS'],
      ['a TRUST_PROXY that is not an address', { TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY'],
      ['a TRUST_PROXY prefix too long', { TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
      ['a TRUST_PROXY with two prefixes', { TRUST_PROXY: '10.0.0.0/8/16' }, 'TRUST_PROXY'],
      ['a TRUST_PROXY with a bad entry among good ones', { TRUST_PROXY: '127.0.0.1,::1/129' }, 'TRUST_PROXY'],
      // Anything but the three names would quietly run as development, each replica with its own generated key.
      ['NODE_ENV=prod', { NODE_ENV: 'prod', PWPUSH_MASTER_KEY: KEY }, 'NODE_ENV'],
      ['NODE_ENV=staging', { NODE_ENV: 'staging', PWPUSH_MASTER_KEY: KEY }, 'NODE_ENV'],
      ['NODE_ENV=Production', { NODE_ENV: 'Production', PWPUSH_MASTER_KEY: KEY }, 'NODE_ENV'],
      ['a base URL that is not http(s)', { PWP__OVERRIDE_BASE_URL: 'ftp://pwpush.example.com' }, 'PWP__OVERRIDE_BASE_URL'],
      ['an unknown log level', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
      ['a size with an unknown unit', { PWP__FILES__MAX_FILE_SIZE: '100MB' }, 'PWP__FILES__MAX_FILE_SIZE'],
      ['a size of zero', { PWP__FILES__MAX_FILE_SIZE: '0' }, 'PWP__FILES__MAX_FILE_SIZE'],
      ['a push size under the file size', { PWP__FILES__MAX_FILE_SIZE: '10MiB', PWP__FILES__MAX_PUSH_SIZE: '5MiB' }, 'PWP__FILES__MAX_PUSH_SIZE'],
      ['a JSON body limit under 16MiB', { PWP__FILES__MAX_JSON_BODY_SIZE: '1MiB' }, 'PWP__FILES__MAX_JSON_BODY_SIZE'],
      ['a body budget that is not a size', { PWP__MAX_BODY_BYTES_IN_FLIGHT: 'lots' }, 'PWP__MAX_BODY_BYTES_IN_FLIGHT'],
      ['a headers timeout of 0 (none)', { HTTP_HEADERS_TIMEOUT_MS: '0' }, 'HTTP_HEADERS_TIMEOUT_MS'],
      ['a request timeout over an hour', { HTTP_REQUEST_TIMEOUT_MS: '3600001' }, 'HTTP_REQUEST_TIMEOUT_MS'],
      ['an unknown file storage', { PWP__FILES__STORAGE: 'google' }, 'PWP__FILES__STORAGE'],
      ['amazon storage without a bucket', { PWP__FILES__STORAGE: 'amazon' }, 'PWP__FILES__S3__BUCKET'],
      ['a bucket name with capitals', { PWP__FILES__STORAGE: 'amazon', PWP__FILES__S3__BUCKET: 'My_Bucket' }, 'PWP__FILES__S3__BUCKET'],
      ['an S3 endpoint that is not a URL', { PWP__FILES__STORAGE: 'amazon', PWP__FILES__S3__BUCKET: 'b12', PWP__FILES__S3__ENDPOINT: 'minio:9000' }, 'PWP__FILES__S3__ENDPOINT'],
      [
        'an S3 access key without its secret',
        { PWP__FILES__STORAGE: 'amazon', PWP__FILES__S3__BUCKET: 'b12', PWP__FILES__S3__ACCESS_KEY_ID: 'AKIA' },
        'PWP__FILES__S3__SECRET_ACCESS_KEY',
      ],
    ])('%s', (_name, env, variable) => {
      expect(settingsErrorFor(env).message).toMatch(new RegExp(`^Invalid setting ${variable}: .+\\.$`));
    });

    it('does not quote an S3 secret in the message', () => {
      const env = { PWP__FILES__STORAGE: 'amazon', PWP__FILES__S3__BUCKET: 'b12', PWP__FILES__S3__SECRET_ACCESS_KEY: 'wJalr XUtnFEMI' };
      expect(settingsErrorFor(env).message).not.toContain('wJalr');
    });

    it('does not quote a bad master key in the message', () => {
      const almost = 'f'.repeat(63);
      expect(settingsErrorFor({ PWPUSH_MASTER_KEY: almost }).message).not.toContain(almost);
      expect(settingsErrorFor({ PWPUSH_MASTER_KEY: KEY, PWPUSH_MASTER_KEY_PREVIOUS: almost }).message).not.toContain(almost);
    });

    it('says what range an out-of-range integer must be in', () => {
      expect(settingsErrorFor({ PWP__PW__EXPIRE_AFTER_DAYS_MIN: '3', PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT: '1' }).message).toBe(
        'Invalid setting PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT: must be an integer from 3 to 90.',
      );
    });
  });
});

describe('operations settings', () => {
  it('default to 120/minute and 60/second, no Redis, no metrics token, no CORS, bounded database waits', () => {
    const sut = loadSettings({});
    expect(sut.throttling).toEqual({ perMinute: 120, perSecond: 60 });
    expect(sut.redis).toBeUndefined();
    expect(sut.metricsToken).toBeUndefined();
    expect(sut.corsOrigins).toEqual([]);
    expect(sut.databaseTimeouts).toEqual({ connectMs: 5000, queryMs: 10_000 });
  });

  it('read the Redis URL with the default or a given key prefix', () => {
    expect(loadSettings({ REDIS_URL: 'redis://:pw@redis:6379/2' }).redis).toEqual({ url: 'redis://:pw@redis:6379/2', keyPrefix: 'pwpush:' });
    expect(loadSettings({ REDIS_URL: 'rediss://redis', REDIS_KEY_PREFIX: 'team-a:{pw}' }).redis).toEqual({ url: 'rediss://redis', keyPrefix: 'team-a:{pw}' });
  });

  it('accept 0 to turn a throttling window off', () => {
    expect(loadSettings({ PWP__THROTTLING__MINUTE: '0', PWP__THROTTLING__SECOND: '5' }).throttling).toEqual({ perMinute: 0, perSecond: 5 });
  });

  it('normalise CORS origins and accept *', () => {
    expect(loadSettings({ CORS_ORIGINS: 'https://a.example.com/, http://localhost:3000' }).corsOrigins).toEqual(['https://a.example.com', 'http://localhost:3000']);
    expect(loadSettings({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it.each([
    ['PWP__THROTTLING__MINUTE', 'lots'],
    ['PWP__THROTTLING__SECOND', '-1'],
    ['REDIS_URL', 'http://redis:6379'],
    ['REDIS_URL', 'redis://'],
    ['REDIS_KEY_PREFIX', 'has space'],
    ['METRICS_TOKEN', 'two words'],
    ['CORS_ORIGINS', 'https://a.example.com/path'],
    ['CORS_ORIGINS', 'a.example.com'],
    ['DB_QUERY_TIMEOUT_MS', '0'],
    ['DB_CONNECT_TIMEOUT_MS', 'soon'],
  ])('refuse %s=%s, naming the variable', (name, value) => {
    const extra = name === 'REDIS_KEY_PREFIX' ? { REDIS_URL: 'redis://redis' } : {};
    expect(settingsErrorFor({ [name]: value, ...extra }).message).toContain(`Invalid setting ${name}`);
  });

  it('never echo a Redis URL, which may hold a password', () => {
    expect(settingsErrorFor({ REDIS_URL: 'redis-ish://:hunter2-secret@redis' }).message).not.toContain('hunter2-secret');
  });
});

describe('file settings', () => {
  it('default to 10 files of 100MiB, 500MiB a push, a 32MiB JSON body, 5-minute links, on local disk under DATA_DIR', () => {
    expect(loadSettings({ DATA_DIR: '/var/lib/pwpush' }).files).toEqual({
      maxUploads: 10,
      maxFileBytes: 100 * 1024 ** 2,
      maxPushBytes: 500 * 1024 ** 2,
      maxJsonBodyBytes: 32 * 1024 ** 2,
      linkLifetimeSeconds: 300,
      storage: { type: 'local', dir: '/var/lib/pwpush/files' },
    });
  });

  it.each([
    ['1048576', 1024 ** 2],
    ['512KiB', 512 * 1024],
    ['2 MiB', 2 * 1024 ** 2],
    ['1GiB', 1024 ** 3],
  ])('read the size %s as %i bytes', (value, bytes) => {
    expect(loadSettings({ PWP__FILES__MAX_FILE_SIZE: value }).files.maxFileBytes).toBe(bytes);
  });

  it('raise the default push size to the file size when the file size is larger', () => {
    expect(loadSettings({ PWP__FILES__MAX_FILE_SIZE: '1GiB' }).files.maxPushBytes).toBe(1024 ** 3);
  });

  it('read S3 storage by the reference names, with credentials together or not at all', () => {
    const env = {
      PWP__FILES__STORAGE: 'amazon',
      PWP__FILES__S3__BUCKET: 'pwpush-files',
      PWP__FILES__S3__REGION: 'eu-west-1',
      PWP__FILES__S3__ENDPOINT: 'http://127.0.0.1:7070',
      PWP__FILES__S3__FORCE_PATH_STYLE: 'true',
      PWP__FILES__S3__PREFIX: 'prod/',
    };
    expect(loadSettings(env).files.storage).toEqual({
      type: 's3',
      bucket: 'pwpush-files',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:7070',
      forcePathStyle: true,
      credentials: undefined,
      prefix: 'prod/',
    });
    const withKeys = loadSettings({ ...env, PWP__FILES__S3__ACCESS_KEY_ID: 'AKIA1', PWP__FILES__S3__SECRET_ACCESS_KEY: 's3cr3t' });
    expect(withKeys.files.storage).toMatchObject({ credentials: { accessKeyId: 'AKIA1', secretAccessKey: 's3cr3t' } });
    expect(loadSettings({ PWP__FILES__STORAGE: 's3', PWP__FILES__S3__BUCKET: 'b12' }).files.storage).toMatchObject({ type: 's3', region: 'us-east-1', prefix: '' });
  });
});

describe('proxy and metrics-port settings', () => {
  it('trust nobody by default, without FORCE_SSL, with /metrics on PORT', () => {
    expect(loadSettings({})).toMatchObject({ trustedProxies: [], forceSsl: false, metricsPort: undefined });
  });

  it('read the reference\'s PWP__TRUSTED_PROXIES beside TRUST_PROXY, separated by commas or spaces, as one list', () => {
    expect(loadSettings({ PWP__TRUSTED_PROXIES: '10.0.0.0/8 172.16.0.0/12,  fc00::/7' }).trustedProxies).toEqual(['10.0.0.0/8', '172.16.0.0/12', 'fc00::/7']);
    expect(loadSettings({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8', PWP__TRUSTED_PROXIES: '10.0.0.0/8 ::1' }).trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', '::1']);
  });

  it('accept 0.0.0.0/0 and ::/0 (every address)', () => {
    expect(loadSettings({ TRUST_PROXY: '0.0.0.0/0,::/0' }).trustedProxies).toEqual(['0.0.0.0/0', '::/0']);
  });

  it('accept FORCE_SSL only with a trusted proxy, which is how https requests are known', () => {
    expect(loadSettings({ FORCE_SSL: 'true', PWP__TRUSTED_PROXIES: '10.0.0.0/8' }).forceSsl).toBe(true);
    expect(settingsErrorFor({ FORCE_SSL: 'true' }).message).toMatch(/^Invalid setting FORCE_SSL: needs TRUST_PROXY \(or PWP__TRUSTED_PROXIES\)/);
    expect(loadSettings({ FORCE_SSL: 'false' }).forceSsl).toBe(false);
  });

  it('read METRICS_PORT, which must differ from PORT', () => {
    expect(loadSettings({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadSettings({ METRICS_PORT: '0', PORT: '0' }).metricsPort).toBe(0);
    expect(settingsErrorFor({ METRICS_PORT: '5100' }).message).toBe('Invalid setting METRICS_PORT: must differ from PORT (or be unset, serving /metrics on PORT).');
  });

  it.each([
    ['PWP__TRUSTED_PROXIES', 'ingress.internal'],
    ['PWP__TRUSTED_PROXIES', '10.0.0.0/8 10.0.0.0/40'],
    ['FORCE_SSL', 'always'],
    ['METRICS_PORT', '70000'],
    ['METRICS_PORT', 'metrics'],
  ])('refuse %s=%s, naming the variable', (name, value) => {
    expect(settingsErrorFor({ [name]: value, TRUST_PROXY: '127.0.0.1' }).message).toContain(`Invalid setting ${name}`);
  });
});
