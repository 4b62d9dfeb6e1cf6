import { duration, flag, group, integer } from './setting';

export const EXPIRY = group({
  title: 'Expiry sweep and retention',
  intro:
    'Every replica runs the sweep; on MySQL a named lock lets one work per round. Turn it off on replicas that should not ' +
    '(retrieval checks expiry itself, so correctness never depends on it).',
  settings: {
    enabled: flag({ name: 'EXPIRY_SWEEP_ENABLED', default: true, meaning: 'Run the background expiry sweep in this process.' }),
    intervalSeconds: integer({
      name: 'EXPIRY_SWEEP_INTERVAL_SECONDS',
      default: 60,
      min: 1,
      max: 86_400,
      unit: 'seconds',
      meaning: 'How often the sweep runs.',
    }),
    batchSize: integer({
      name: 'EXPIRY_SWEEP_BATCH_SIZE',
      default: 2000,
      min: 1,
      max: 50_000,
      meaning: 'Pushes expired or purged per statement.',
    }),
    purgeAfter: duration({
      name: 'PWP__PURGE_AFTER',
      meaning:
        'Delete expired pushes (with their audit log) this long after they expired: e.g. "30 days", "3 months" (a month is 30 days), "1 year"; disabled keeps them.',
    }),
  },
});
