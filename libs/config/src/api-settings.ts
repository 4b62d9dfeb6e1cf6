import { flag, group } from './setting';

export const API = group({
  title: 'API',
  settings: {
    allowAnonymous: flag({
      name: 'PWP__ALLOW_ANONYMOUS',
      default: true,
      meaning: 'Pushes without an API token (and the push form without a sign-in); false makes every endpoint but version need a token.',
    }),
    urlPushesRequireAccount: flag({
      name: 'PWP__URL__REQUIRE_ACCOUNT',
      default: false,
      meaning:
        'true: URL pushes only with an API token or a sign-in (anonymous ones get 401). An anonymous URL push is a redirect from this instance\'s domain to any address (the retrieval step only puts a click before it); see README, "URL pushes and open redirects".',
    }),
    apiV1Enabled: flag({
      name: 'PWP__API_V1__ENABLED',
      default: true,
      meaning:
        "The reference's legacy API v1 (/p.json, /f.json, /r.json, /p/:url_token.json, ...), deprecated; false: all of it answers 404, GET /api/v1/version included.",
    }),
    allowSubdayExpiry: flag({
      name: 'PWP__ALLOW_SUBDAY_EXPIRY',
      default: true,
      meaning: 'expire_after_duration 0..5: lifetimes of 15, 30, 45 minutes, 1, 6, 12 hours; false makes them a 422.',
    }),
  },
});
