import { SettingsError } from './env-reader';
import { group, integer, text } from './setting';

export const METRICS = group({
  title: 'Metrics',
  intro: 'Prometheus metrics at /metrics.',
  settings: {
    token: text({
      name: 'METRICS_TOKEN',
      secret: true,
      check: { valid: (v) => !/\s/.test(v), expectation: 'must not contain whitespace' },
      unset: 'no token needed',
      meaning: 'When set, /metrics requires "Authorization: Bearer <METRICS_TOKEN>".',
    }),
    port: integer({
      name: 'METRICS_PORT',
      min: 0,
      max: 65535,
      unset: '/metrics on PORT',
      meaning: "When set, /metrics is served on this port alone and PORT answers it 404 (keep it out of an ingress's reach).",
    }),
  },
});

export function checkMetricsPortIsOwn(metricsPort: number | undefined, port: number): void {
  if (metricsPort && metricsPort === port) {
    throw new SettingsError('Invalid setting METRICS_PORT: must differ from PORT (or be unset, serving /metrics on PORT).');
  }
}
