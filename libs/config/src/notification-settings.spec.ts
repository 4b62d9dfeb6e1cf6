import { loadSettings, SettingsError } from './settings';

describe('notification settings', () => {
  it('default to a worker in every process, polling every 2 s, retrying from 10 s for a day, 20 attempts at once (4 per endpoint, 8 per user)', () => {
    expect(loadSettings({}).notifications).toEqual({
      workerEnabled: true, pollIntervalMs: 2000, backoffMs: 10_000, retryForMs: 86_400_000, batchSize: 20, perEndpoint: 4, perUser: 8, disableAfterFailures: 30,
    });
  });

  it('read the reference-style names', () => {
    const sut = loadSettings({
      NOTIFICATIONS_WORKER_ENABLED: 'false',
      PWP__NOTIFICATIONS__POLL_SECONDS: '5',
      PWP__NOTIFICATIONS__BACKOFF_SECONDS: '30',
      PWP__NOTIFICATIONS__RETRY_FOR_SECONDS: '3600',
      PWP__NOTIFICATIONS__BATCH_SIZE: '50',
      PWP__NOTIFICATIONS__PER_ENDPOINT: '3',
      PWP__NOTIFICATIONS__PER_USER: '10',
      PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES: '5',
    }).notifications;
    expect(sut).toEqual({ workerEnabled: false, pollIntervalMs: 5000, backoffMs: 30_000, retryForMs: 3_600_000, batchSize: 50, perEndpoint: 3, perUser: 10, disableAfterFailures: 5 });
  });

  it.each([
    ['PWP__NOTIFICATIONS__RETRY_FOR_SECONDS', '59'],
    ['PWP__NOTIFICATIONS__RETRY_FOR_SECONDS', '604801'],
    ['PWP__NOTIFICATIONS__POLL_SECONDS', '0'],
    ['PWP__NOTIFICATIONS__BATCH_SIZE', 'many'],
    ['PWP__NOTIFICATIONS__PER_ENDPOINT', '0'],
    ['PWP__NOTIFICATIONS__PER_USER', '0'],
    ['PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES', '0'],
  ])('refuse %s=%s, naming it', (name, value) => {
    expect(() => loadSettings({ [name]: value })).toThrow(SettingsError);
    expect(() => loadSettings({ [name]: value })).toThrow(`Invalid setting ${name}`);
  });
});
