import { Injectable } from '@nestjs/common';
import { Clock, HOUR_MS } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { AccountMails } from './account-mails';
import { AccountsRepository } from './accounts.repository';
import { SecurityLog } from './security-log';
import type { UserEntity } from './user.entity';

/** The reference's lockout (Devise's lockable): 10 failures lock; the lock lifts by the mailed link or after an hour. */
export const LOCKOUT = { attempts: 10, unlockAfterMs: HOUR_MS } as const;

/** The client of a request, as the security log keeps it. */
export interface ClientSeen {
  ip: string;
  userAgent: string;
}

/**
 * The account lockout, on with account emails (as in the reference, where the unlock mail is
 * how a person gets back in early). Wrong passwords and wrong second-step codes count; a sign-in
 * forgets them. It is the account's own defence, beside the per-address limits of SignInAttempts.
 */
@Injectable()
export class Lockout {
  constructor(
    private readonly repository: AccountsRepository,
    private readonly mails: AccountMails,
    private readonly log: SecurityLog,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  get enabled(): boolean {
    return this.settings.accounts.accountEmails;
  }

  /** Whether the account is locked now. A lock an hour old is lifted here, and the log says so. */
  async isLocked(user: UserEntity): Promise<boolean> {
    if (!this.enabled || user.lockedAt === null) return false;
    if (this.clock.now() - user.lockedAt < LOCKOUT.unlockAfterMs) return true;
    await this.repository.transaction(async (manager) => {
      if (await this.repository.unlock(user.id, manager)) await this.log.record({ userId: user.id, email: user.email, kind: 'unlocked', detail: { by: 'time' } }, manager);
    });
    user.lockedAt = null;
    user.failedAttempts = 0;
    return false;
  }

  /**
   * A wrong password (`sign_in_failed`) or second-step code (`two_factor_failed`) for the account:
   * logged, and with the lockout on counted; the failure that reaches the limit locks the account
   * and mails the unlock link.
   */
  async failed(user: UserEntity, client: ClientSeen, kind: 'sign_in_failed' | 'two_factor_failed'): Promise<void> {
    await this.repository.transaction(async (manager) => {
      await this.log.record({ userId: user.id, email: user.email, kind, client }, manager);
      if (!this.enabled) return;
      const failures = await this.repository.countFailure(user.id, manager);
      if (failures < LOCKOUT.attempts || !(await this.repository.lock(user.id, LOCKOUT.attempts, this.clock.now(), manager))) return;
      await this.log.record({ userId: user.id, email: user.email, kind: 'locked', client, detail: { failures } }, manager);
      await this.mails.sendLink(manager, user, 'unlock', user.email);
    });
  }
}
