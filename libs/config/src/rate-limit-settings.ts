import { group, integer } from './setting';

export const RATE_LIMITS = group({
  title: 'Rate limits',
  intro:
    'Requests per client IP (see TRUST_PROXY), over all routes except version, health, readiness and metrics. 0 turns that window off. ' +
    'Counted in each process, or shared by all replicas with REDIS_URL.',
  settings: {
    perMinute: integer({
      name: 'PWP__THROTTLING__MINUTE',
      default: 120,
      min: 0,
      max: 1_000_000_000,
      meaning: 'Requests per client IP per minute.',
    }),
    perSecond: integer({
      name: 'PWP__THROTTLING__SECOND',
      default: 60,
      min: 0,
      max: 1_000_000_000,
      meaning: 'Requests per client IP per second.',
    }),
  },
});
