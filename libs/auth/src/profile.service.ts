import { Injectable } from '@nestjs/common';
import { asciiLowerCase, Clock } from '@app/common';
import { InjectSettings, LANGUAGE_CODES, type Settings } from '@app/config';
import { AccountMails } from './account-mails';
import { AccountFormError, newPasswordErrors, personEmail } from './account-rules';
import { AccountsRepository } from './accounts.repository';
import type { AuthenticatedUser } from './authenticated-user';
import type { ClientSeen } from './lockout';
import { SecurityLog } from './security-log';
import { UnseenWork } from './unseen-work';
import { UserEntity } from './user.entity';
import { hashToken, UsersService } from './users.service';


/** What the account page shows of the person. */
export interface Profile {
  email: string;
  /** A new address waiting for its confirmation. */
  pendingEmail: string | null;
  preferredLanguage: string | null;
  /** Whether they have a password (people who only sign in by single sign-on have none). */
  hasPassword: boolean;
}

/**
 * What a signed-in person changes on their account page: their address (confirmed by mail first
 * when account emails are on), their password (the current one required; their other sessions
 * end), their preferred language, and the account itself, deleted with their current password.
 */
@Injectable()
export class ProfileService {
  constructor(
    private readonly users: UsersService,
    private readonly repository: AccountsRepository,
    private readonly mails: AccountMails,
    private readonly log: SecurityLog,
    private readonly unseen: UnseenWork,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async profile(user: AuthenticatedUser): Promise<Profile> {
    const account = await this.account(user);
    return { email: account.email, pendingEmail: account.unconfirmedEmail, preferredLanguage: account.preferredLanguage, hasPassword: account.passwordHash !== null };
  }

  /**
   * A new address. With account emails on it waits for the confirmation mailed to it ('confirm';
   * an address another account has gets no mail, and the same answer); without, it is the
   * account's at once ('changed'), or refused when another account has it.
   */
  async changeEmail(user: AuthenticatedUser, given: string, currentPassword: string, client: ClientSeen): Promise<'confirm' | 'changed'> {
    const account = await this.withPassword(user, currentPassword);
    const email = personEmail(this.settings, given);
    if (email === null) throw new AccountFormError({ email: 'email-invalid' });
    if (email === account.email) throw new AccountFormError({ email: 'email-unchanged' });
    const other = await this.repository.findByEmail(email);
    const now = this.clock.now();
    if (this.mails.enabled) {
      await this.repository.updateUser(account.id, { unconfirmedEmail: email, updatedAt: now });
      // Unseen (UnseenWork): the answer does not wait for the link, so its timing does not say whether the address had an account.
      if (!other) this.unseen.start('An address change', () => this.repository.transaction((manager) => this.mails.sendLink(manager, account, 'confirmation', email, email)));
      return 'confirm';
    }
    if (other) throw new AccountFormError({ email: 'email-taken' });
    await this.repository.transaction(async (manager) => {
      await this.repository.updateUser(account.id, { email, unconfirmedEmail: null, updatedAt: now }, manager);
      await this.log.record({ userId: account.id, email, kind: 'email_changed', client, detail: { previous: account.email } }, manager);
    });
    return 'changed';
  }

  /** A new password; every other session of the account ends (`keepSession`: the browser's own), and so does a reset link. */
  async changePassword(user: AuthenticatedUser, currentPassword: string, password: string, confirmation: string, client: ClientSeen, keepSession?: string): Promise<void> {
    const account = await this.withPassword(user, currentPassword);
    const errors = newPasswordErrors(password, confirmation);
    if (Object.keys(errors).length > 0) throw new AccountFormError(errors);
    const passwordHash = await this.users.hashPassword(password);
    await this.repository.transaction(async (manager) => {
      await this.repository.updateUser(account.id, { passwordHash, updatedAt: this.clock.now() }, manager);
      await this.repository.endSessions(account.id, manager, keepSession === undefined ? undefined : hashToken(keepSession));
      await this.repository.deleteTokens(account.id, 'reset', manager);
      await this.log.record({ userId: account.id, email: account.email, kind: 'password_changed', client, detail: { by: 'account' } }, manager);
      await this.mails.passwordChanged(manager, account);
    });
  }

  /** Stores the preferred language: one of LANGUAGE_CODES, or none (''); false for anything else. */
  async setLanguage(user: AuthenticatedUser, code: string): Promise<boolean> {
    if (code !== '' && !(LANGUAGE_CODES as readonly string[]).includes(code)) return false;
    await this.repository.updateUser(user.id, { preferredLanguage: code === '' ? null : code, updatedAt: this.clock.now() });
    return true;
  }

  /**
   * Checks that the person may delete their account: their current password, or, for someone
   * without one (single sign-on only), their address typed out. Throws AccountFormError.
   */
  async confirmDeletion(user: AuthenticatedUser, given: string): Promise<void> {
    const account = await this.account(user);
    if (account.passwordHash === null && asciiLowerCase(given.trim()) === account.email) return;
    await this.withPassword(user, given);
  }

  /**
   * Deletes the account: its tokens, sessions, webhooks and pending mails go with it (foreign
   * keys); its security log stays, under its address. The pages expire and delete the person's
   * pushes first (PushesService), having called confirmDeletion.
   */
  async delete(user: AuthenticatedUser, client: ClientSeen): Promise<void> {
    await this.repository.transaction(async (manager) => {
      await this.log.record({ userId: user.id, email: user.email, kind: 'account_deleted', client, detail: { by: 'self' } }, manager);
      await manager.delete(UserEntity, { id: user.id });
    });
  }

  private async account(user: AuthenticatedUser): Promise<UserEntity> {
    const account = await this.repository.findUser(user.id);
    if (!account) throw new AccountFormError({ current_password: 'current-password-wrong' });
    return account;
  }

  /** The account, when `password` is its current password (one Argon2 verification either way). */
  private async withPassword(user: AuthenticatedUser, password: string): Promise<UserEntity> {
    const account = await this.account(user);
    if (!(await this.users.isPassword(account, password))) throw new AccountFormError({ current_password: 'current-password-wrong' });
    return account;
  }
}
