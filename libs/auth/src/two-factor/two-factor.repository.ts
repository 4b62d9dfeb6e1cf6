import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, IsNull, LessThanOrEqual, Not, Repository } from 'typeorm';
import { Sql, type Statement } from '@app/database';
import { SessionEntity } from '../session.entity';
import { UserEntity } from '../user.entity';
import { RecoveryCodeEntity } from './recovery-code.entity';
import { TwoFactorChallengeEntity } from './two-factor-challenge.entity';

/** What two-factor knows of a person. */
export interface TwoFactorRecord {
  id: number;
  email: string;
  hasWebhooks: boolean;
  hasPassword: boolean;
  /** Sealed; present during a setup and while two-factor is on. */
  secret: Buffer | null;
  enabledAt: number | null;
}

/** A sign-in waiting for its code, with whose it is (never a disabled or locked account's: the lockout ends it). */
export interface PendingChallenge {
  id: number;
  attempts: number;
  remember: boolean;
  user: { id: number; email: string; hasWebhooks: boolean };
}

/** Accepts a code's step only when it is later than the last one accepted: one UPDATE, so two requests with one code cannot both pass. */
const ACCEPT_STEP =
  'UPDATE users SET otp_last_step = ? WHERE id = ? AND otp_enabled_at IS NOT NULL AND (otp_last_step IS NULL OR otp_last_step < ?)';
const ENABLE =
  'UPDATE users SET otp_enabled_at = ?, otp_last_step = ?, updated_at = ? WHERE id = ? AND otp_enabled_at IS NULL AND otp_secret IS NOT NULL';
const CLAIM_ATTEMPT = 'UPDATE two_factor_challenges SET attempts = attempts + 1 WHERE id = ? AND attempts < ? AND expires_at > ?';
const PENDING =
  'SELECT c.id, c.attempts, c.remember, u.id AS user_id, u.email, u.has_webhooks FROM two_factor_challenges c JOIN users u ON u.id = c.user_id WHERE c.token_hash = ? AND c.expires_at > ? AND u.disabled_at IS NULL AND u.locked_at IS NULL';

/** The TOTP columns of users, the recovery codes and the sign-ins waiting for a code; every check-and-use is one conditional statement. */
@Injectable()
export class TwoFactorRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(RecoveryCodeEntity) private readonly codes: Repository<RecoveryCodeEntity>,
    @InjectRepository(TwoFactorChallengeEntity) private readonly challenges: Repository<TwoFactorChallengeEntity>,
    private readonly sql: Sql,
  ) {}

  async record(userId: number): Promise<TwoFactorRecord | null> {
    const user = await this.users.findOne({
      where: { id: userId },
      select: { id: true, email: true, hasWebhooks: true, passwordHash: true, otpSecret: true, otpEnabledAt: true },
    });
    return (
      user && {
        id: user.id,
        email: user.email,
        hasWebhooks: user.hasWebhooks,
        hasPassword: user.passwordHash !== null,
        secret: user.otpSecret,
        enabledAt: user.otpEnabledAt,
      }
    );
  }

  async isOn(userId: number): Promise<boolean> {
    const user = await this.users.findOne({ where: { id: userId }, select: { id: true, otpEnabledAt: true } });
    return user?.otpEnabledAt != null;
  }

  /**
   * A setup under way: the sealed secret and a new set of recovery codes (replacing any earlier
   * set), only while two-factor is off; false when it is on.
   */
  async prepare(userId: number, secret: Buffer, codeHashes: string[], now: number): Promise<boolean> {
    return this.users.manager.transaction(async (manager) => {
      const updated = await manager.update(UserEntity, { id: userId, otpEnabledAt: IsNull() }, { otpSecret: secret, updatedAt: now });
      if ((updated.affected ?? 0) === 0) return false;
      await this.putRecoveryCodes(userId, codeHashes, now, manager);
      return true;
    });
  }

  /** Turns two-factor on with the step of the code that proved the setup, and records `event` with it; false when it was on already. */
  async enable(userId: number, step: number, now: number, event: Statement): Promise<boolean> {
    return (await this.sql.writeIf({ sql: ENABLE, parameters: [now, step, now, userId] }, [event])) !== null;
  }

  async acceptStep(userId: number, step: number): Promise<boolean> {
    return (await this.sql.write(ACCEPT_STEP, [step, userId, step])).affected === 1;
  }

  /** Uses up the recovery code with one of these hashes (one per key of the ring) and records `event` with it; false when there is none. */
  async useRecoveryCode(userId: number, codeHashes: string[], event: Statement): Promise<boolean> {
    const guard = `DELETE FROM recovery_codes WHERE user_id = ? AND code_hash IN (${codeHashes.map(() => '?').join(', ')})`;
    return (await this.sql.writeIf({ sql: guard, parameters: [userId, ...codeHashes] }, [event])) !== null;
  }

  countRecoveryCodes(userId: number): Promise<number> {
    return this.codes.countBy({ userId });
  }

  /** Replaces the recovery codes while two-factor is on (the UPDATE also holds the row until the transaction ends). */
  async replaceRecoveryCodes(userId: number, codeHashes: string[], now: number, manager: EntityManager): Promise<boolean> {
    const on = await manager.update(UserEntity, { id: userId, otpEnabledAt: Not(IsNull()) }, { updatedAt: now });
    if ((on.affected ?? 0) === 0) return false;
    await this.putRecoveryCodes(userId, codeHashes, now, manager);
    return true;
  }

  /** Forgets the person's secret, recovery codes and waiting sign-ins, in the transaction of `manager`; whether two-factor was on. */
  async clear(userId: number, now: number, manager: EntityManager): Promise<boolean> {
    const wasOn =
      ((await manager.update(UserEntity, { id: userId, otpEnabledAt: Not(IsNull()) }, { otpEnabledAt: null })).affected ?? 0) > 0;
    await manager.update(UserEntity, { id: userId }, { otpSecret: null, otpLastStep: null, updatedAt: now });
    await manager.delete(RecoveryCodeEntity, { userId });
    await manager.delete(TwoFactorChallengeEntity, { userId });
    return wasOn;
  }

  /** Ends every session of the person, in the transaction of `manager`. */
  async endSessions(userId: number, manager: EntityManager): Promise<void> {
    await manager.delete(SessionEntity, { userId });
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.users.manager.transaction(work);
  }

  /** A sign-in now waits for its code; the person's lapsed ones go. */
  async insertChallenge(challenge: Omit<TwoFactorChallengeEntity, 'id' | 'attempts'>): Promise<void> {
    await this.challenges.delete({ userId: challenge.userId, expiresAt: LessThanOrEqual(challenge.createdAt) });
    await this.challenges.insert({ ...challenge, attempts: 0 });
  }

  async pendingChallenge(tokenHash: string, now: number): Promise<PendingChallenge | null> {
    const [row] = await this.sql.rows<{
      id: unknown;
      attempts: unknown;
      remember: unknown;
      user_id: unknown;
      email: string;
      has_webhooks: unknown;
    }>(PENDING, [tokenHash, now]);
    if (!row) return null;
    return {
      id: Number(row.id),
      attempts: Number(row.attempts),
      remember: Number(row.remember) === 1,
      user: { id: Number(row.user_id), email: row.email, hasWebhooks: Number(row.has_webhooks) === 1 },
    };
  }

  /** Counts a code tried on the challenge, unless it has had `limit` or has lapsed: false then. */
  async claimAttempt(id: number, limit: number, now: number): Promise<boolean> {
    return (await this.sql.write(CLAIM_ATTEMPT, [id, limit, now])).affected === 1;
  }

  /** Ends the challenge; false when another request ended it first. */
  async deleteChallenge(id: number): Promise<boolean> {
    return ((await this.challenges.delete({ id })).affected ?? 0) > 0;
  }

  private async putRecoveryCodes(userId: number, codeHashes: string[], now: number, manager: EntityManager): Promise<void> {
    await manager.delete(RecoveryCodeEntity, { userId });
    await manager.insert(
      RecoveryCodeEntity,
      codeHashes.map((codeHash) => ({ userId, codeHash, createdAt: now })),
    );
  }
}
