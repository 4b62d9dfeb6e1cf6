import { flag, group } from './setting';

export const REQUESTS = group({
  title: 'Secret requests',
  intro: 'A signed-in person asks someone to send them a secret (`/api/v2/requests`, the page `/requests/:url_token`).',
  settings: {
    enabled: flag({
      name: 'PWP__ENABLE_REQUESTS',
      default: true,
      meaning: 'Secret requests (features.requests.enabled in the version answer); false: every /api/v2/requests route and request page answers 404.',
    }),
  },
});
