import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';

/**
 * `users.has_webhooks`, a column of auth's users table: whether the user has any webhook (or
 * `mailto:`) endpoint, so that the requests record events only for owners who hear of them, at no
 * extra query: it comes with the caller's token (AuthenticatedUser.hasWebhooks) and is joined with
 * their pushes (ownerWebhooksJoin). libs/notifications, which stores the endpoints, keeps it
 * through this port.
 */
@Injectable()
export class WebhookOwners {
  constructor(private readonly sql: Sql) {}

  /**
   * Sets the user's flag from `countEndpoints` (a COUNT over the caller's table of endpoints, with
   * one placeholder: the user's id) in one statement: each change's statement reads what is stored
   * when it runs, so concurrent registrations and deletions leave the flag right.
   */
  async refresh(userId: number, countEndpoints: string): Promise<void> {
    await this.sql.write(`UPDATE users SET has_webhooks = (${countEndpoints}) > 0 WHERE id = ?`, [userId, userId]);
  }
}

/** For another table's queries that need its owner's flag: the join on users by `ownerColumn`, and the flag's column. */
export function ownerWebhooksJoin(ownerColumn: string): { join: string; hasWebhooks: string } {
  return { join: `LEFT JOIN users owner_flags ON owner_flags.id = ${ownerColumn}`, hasWebhooks: 'owner_flags.has_webhooks' };
}
