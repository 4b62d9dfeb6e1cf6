import { Env, loadSettings, SettingsError } from './settings';

function errorFor(env: Env): SettingsError {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error(`loadSettings accepted ${JSON.stringify(env)}`);
}

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
    expect(errorFor({ [name]: value, ...extra }).message).toContain(`Invalid setting ${name}`);
  });

  it('never echo a Redis URL, which may hold a password', () => {
    expect(errorFor({ REDIS_URL: 'redis-ish://:hunter2-secret@redis' }).message).not.toContain('hunter2-secret');
  });
});
