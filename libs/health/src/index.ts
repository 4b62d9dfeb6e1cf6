/**
 * Probes for the orchestrator: /healthz (liveness: the process serves, nothing else is checked)
 * and /readyz (readiness: the database answers; Redis, optional, is reported but never makes a
 * pod unready).
 */
export * from './health.module';
