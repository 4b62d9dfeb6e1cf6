/**
 * API v1, the reference's legacy API (deprecated; kept so its clients keep working): `/p.json`,
 * `/f.json`, `/r.json` and the routes under `/p`, `/f` and `/r` that end in `.json`. Translations
 * of v1's wrapper keys, paths and audit shape onto the same PushesService calls as v2; its
 * policies (deprecation headers, the off switch, CORS for `POST /p.json`) in one middleware.
 */
export * from './api-v1.module';
export { apiV1Policies } from './api-v1.policies';
