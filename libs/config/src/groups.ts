import { ACCOUNTS } from './account-settings';
import { API } from './api-settings';
import { AUDIT } from './audit-settings';
import { BRAND } from './brand-settings';
import { DATABASE } from './database-settings';
import { ENCRYPTION } from './encryption-settings';
import { EXPIRY } from './expiry-settings';
import { FILES } from './file-settings';
import { HTTP } from './http-settings';
import { LANGUAGES } from './language-settings';
import { MAIL } from './mail-settings';
import { METRICS } from './metrics-settings';
import { NOTIFICATIONS } from './notification-settings';
import { SIGN_IN } from './oidc-settings';
import { PAGES } from './page-settings';
import { PROCESS } from './process-settings';
import { PROXY } from './proxy-settings';
import { FILE_PUSHES, QR_PUSHES, TEXT_PUSHES, URL_PUSHES } from './push-kind-settings';
import { RATE_LIMITS } from './rate-limit-settings';
import { REDIS } from './redis-settings';
import { REQUESTS } from './request-settings';
import { Setting, SettingGroup } from './setting';
import { STORAGE } from './storage-settings';
import { WEBHOOKS } from './webhook-settings';

/** Every settings table, in the order .env.example and docs/configuration.md present them. */
export const SETTING_GROUPS: readonly SettingGroup[] = [
  PROCESS,
  DATABASE,
  ENCRYPTION,
  PROXY,
  HTTP,
  API,
  RATE_LIMITS,
  REDIS,
  METRICS,
  EXPIRY,
  AUDIT,
  TEXT_PUSHES,
  URL_PUSHES,
  FILE_PUSHES,
  QR_PUSHES,
  REQUESTS,
  FILES,
  STORAGE,
  MAIL,
  WEBHOOKS,
  NOTIFICATIONS,
  ACCOUNTS,
  SIGN_IN,
  BRAND,
  PAGES,
  LANGUAGES,
];

export const ALL_SETTINGS: readonly Setting<unknown>[] = SETTING_GROUPS.flatMap((group) => Object.values(group.settings));
