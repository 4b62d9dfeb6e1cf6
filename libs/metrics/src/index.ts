/**
 * Prometheus metrics: the Metrics service (HTTP request durations and the business counters that
 * other libraries increment), request timing, and the /metrics endpoint (on PORT, or on a port of
 * its own: METRICS_PORT).
 * Label values come only from small fixed sets, never from tokens, paths or user input.
 */
export * from './metrics.module';
export {
  Metrics,
  type RetrievalOutcome,
  type ExpiryReason,
  type FileDirection,
  type DependencyStates,
  type NotificationChannel,
  type NotificationOutcome,
  type NotificationQueue,
} from './metrics';
export { MetricsServer } from './metrics-server';
export { recordRequest, routeLabel, methodLabel, statusClassLabel } from './http-metrics';
