import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { FieldCipher, randomToken } from '@app/crypto';
import { ACCOUNT_MAIL_TOKEN_CONTEXT, type AccountMailKind, Outbox } from '@app/events';
import type { AccountTokenPurpose } from './account-token.entity';
import { AccountsRepository } from './accounts.repository';
import { hashToken } from './users.service';

/** How long each mailed link works (the reference's Devise settings). */
export const LINK_LIFETIMES_MS: Record<AccountTokenPurpose, number> = {
  confirmation: 3 * 24 * 60 * 60 * 1000,
  reset: 6 * 60 * 60 * 1000,
  // The lock lifts by itself after an hour; the link works as long as the lock could last.
  unlock: 60 * 60 * 1000,
};

/** Whom a mail is for: the account, and the language its mails are written in (their preference, if any). */
type Person = { id: number; preferredLanguage?: string | null };

const MAIL_OF: Record<AccountTokenPurpose, AccountMailKind> = { confirmation: 'confirmation', reset: 'reset', unlock: 'unlock' };

/**
 * The account mails, as outbox events written in the transaction of the change that causes them
 * (the worker sends them; nothing is sent inside a request). A link's token is 256 random bits:
 * only its SHA-256 is stored with the account, and the mail's copy waits in the outbox sealed
 * under the master key, so neither table holds a usable token.
 */
@Injectable()
export class AccountMails {
  constructor(
    private readonly repository: AccountsRepository,
    private readonly outbox: Outbox,
    private readonly cipher: FieldCipher,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** Whether account emails are on (PWP__ENABLE_USER_ACCOUNT_EMAILS). */
  get enabled(): boolean {
    return this.settings.accounts.accountEmails;
  }

  /**
   * Issues a link of `purpose` for the user (voiding their earlier one) and mails it to `to`;
   * `email` is the address a confirmation confirms.
   */
  async sendLink(manager: EntityManager, user: Person, purpose: AccountTokenPurpose, to: string, email: string | null = null): Promise<void> {
    const token = randomToken(32);
    const now = this.clock.now();
    const expiresAt = now + LINK_LIFETIMES_MS[purpose];
    await this.repository.replaceToken({ userId: user.id, purpose, tokenHash: hashToken(token), email, createdAt: now, expiresAt }, manager);
    await this.mail(manager, user, {
      kind: MAIL_OF[purpose],
      to,
      sealed_token: this.cipher.encrypt(token, ACCOUNT_MAIL_TOKEN_CONTEXT).toString('base64url'),
      expires_at: new Date(expiresAt).toISOString(),
    });
  }

  /** "Your password was changed", when account emails are on. */
  async passwordChanged(manager: EntityManager, user: { id: number; email: string }): Promise<void> {
    if (this.enabled) await this.mail(manager, user, { kind: 'password_changed', to: user.email });
  }

  /** To the old address: the account's address is now `newEmail`. */
  async emailChanged(manager: EntityManager, user: { id: number }, oldEmail: string, newEmail: string): Promise<void> {
    if (this.enabled) await this.mail(manager, user, { kind: 'email_changed', to: oldEmail, new_email: newEmail });
  }

  private async mail(manager: EntityManager, user: Person, mail: { kind: AccountMailKind; to: string; sealed_token?: string; expires_at?: string; new_email?: string }): Promise<void> {
    // The settings refuse account emails without one of the two (checkAccountEmailsHaveMail).
    const linkBase = this.settings.mail.linkBaseUrl ?? this.settings.overrideBaseUrl ?? '';
    const locale = user.preferredLanguage ?? undefined;
    await this.repository.run(manager, this.outbox.accountMail(user.id, { ...mail, link_base: linkBase, ...(locale && { locale }) }, this.clock.now()));
  }
}
