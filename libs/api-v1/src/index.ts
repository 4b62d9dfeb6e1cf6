/**
 * API v1, the reference's legacy API (deprecated; kept so its clients keep working): `/p.json`,
 * `/f.json`, `/r.json`, the routes under `/p`, `/f` and `/r` that end in `.json`, and
 * `/api/v1/version`. Translations of v1's wrapper keys, paths and audit shape onto the same
 * PushesService calls as v2; its policies (deprecation headers, the off switch, CORS for
 * `POST /p.json`) in one middleware that knows v1's routes as the controllers declare them.
 */
export * from './api-v1.module';
export { apiV1Policies, v1Paths } from './api-v1.policies';
