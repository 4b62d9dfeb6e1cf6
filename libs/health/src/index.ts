/**
 * Probes for the orchestrator: /healthz (liveness: the process serves, nothing else is checked)
 * and /readyz (readiness: the database answers, and Redis when it is configured).
 */
export * from './health.module';
