import { CreatePushesAndAudit1763769600000 } from './1763769600000-create-pushes-and-audit';
import { Accounts1763856000000 } from './1763856000000-accounts';
import { PurgeIndex1763942400000 } from './1763942400000-purge-index';
import { ExactTokenMatch1764028800000 } from './1764028800000-exact-token-match';
import { FileAttachments1764115200000 } from './1764115200000-file-attachments';
import { Sessions1764288000000 } from './1764288000000-sessions';
import { MysqlDefinitionsAsEntities1764374400000 } from './1764374400000-mysql-definitions-as-entities';
import { OwnerExpiryIndex1764460800000 } from './1764460800000-owner-expiry-index';
import { Notifications1764547200000 } from './1764547200000-notifications';
import { SingleSignOn1764633600000 } from './1764633600000-single-sign-on';
import { WebhookEndpointHealth1764720000000 } from './1764720000000-webhook-endpoint-health';
import { EmailQuotas1764763200000 } from './1764763200000-email-quotas';
import { PeopleAccounts1764892800000 } from './1764892800000-people-accounts';
import { TwoFactor1764936000000 } from './1764936000000-two-factor';
import { CustomStylesheets1764979200000 } from './1764979200000-custom-stylesheets';
import { SecretRequests1765065600000 } from './1765065600000-secret-requests';
import { ExactRequestTokenMatch1765152000000 } from './1765152000000-exact-request-token-match';

/** Every migration, oldest first. Add new ones at the end. */
export const MIGRATIONS = [
  CreatePushesAndAudit1763769600000,
  Accounts1763856000000,
  PurgeIndex1763942400000,
  ExactTokenMatch1764028800000,
  FileAttachments1764115200000,
  Sessions1764288000000,
  MysqlDefinitionsAsEntities1764374400000,
  OwnerExpiryIndex1764460800000,
  Notifications1764547200000,
  SingleSignOn1764633600000,
  WebhookEndpointHealth1764720000000,
  EmailQuotas1764763200000,
  PeopleAccounts1764892800000,
  TwoFactor1764936000000,
  CustomStylesheets1764979200000,
  SecretRequests1765065600000,
  ExactRequestTokenMatch1765152000000,
];
