import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, MoreThan, Repository } from 'typeorm';
import { engineOf, forPostgres, type Statement } from '@app/database';
import { AccountTokenEntity, type AccountTokenPurpose } from './account-token.entity';
import { FirstRunCodeEntity } from './first-run-code.entity';
import { SessionEntity } from './session.entity';
import { TwoFactorChallengeEntity } from './two-factor/two-factor-challenge.entity';
import { UserEntity } from './user.entity';

/**
 * What people's own accounts need beyond UsersRepository: the single-use mailed tokens, the
 * lockout's counter, the first run's boot codes, and the changes of address and password. Each
 * method takes the manager of the transaction it belongs to, when it belongs to one.
 */
@Injectable()
export class AccountsRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(AccountTokenEntity) private readonly tokens: Repository<AccountTokenEntity>,
    @InjectRepository(FirstRunCodeEntity) private readonly codes: Repository<FirstRunCodeEntity>,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.users.manager.transaction(work);
  }

  /** Runs a statement built for Sql (an outbox event, whose parameters are plain values) inside a TypeORM transaction. */
  async run(manager: EntityManager, statement: Statement): Promise<void> {
    await manager.query(engineOf(manager.connection) === 'postgres' ? forPostgres(statement.sql) : statement.sql, [...statement.parameters]);
  }

  findUser(id: number, manager: EntityManager = this.users.manager): Promise<UserEntity | null> {
    return manager.findOneBy(UserEntity, { id });
  }

  /** The account of exactly this address (MySQL's collation would also match lookalikes: a Kelvin sign for a k). */
  async findByEmail(email: string, manager: EntityManager = this.users.manager): Promise<UserEntity | null> {
    const user = await manager.findOneBy(UserEntity, { email });
    return user?.email === email ? user : null;
  }

  async updateUser(id: number, changes: Partial<Omit<UserEntity, 'id'>>, manager: EntityManager = this.users.manager): Promise<void> {
    await manager.update(UserEntity, { id }, changes);
  }

  /** A new token of this purpose for the user, replacing (and so voiding) the earlier ones. */
  async replaceToken(token: Omit<AccountTokenEntity, 'id'>, manager: EntityManager): Promise<void> {
    await manager.delete(AccountTokenEntity, { userId: token.userId, purpose: token.purpose });
    await manager.insert(AccountTokenEntity, token);
  }

  /** The token of this hash and purpose while it works at `now`. */
  findToken(tokenHash: string, purpose: AccountTokenPurpose, now: number): Promise<AccountTokenEntity | null> {
    return this.tokens.findOneBy({ tokenHash, purpose, expiresAt: MoreThan(now) });
  }

  /** Uses the token up: true for the one caller whose delete took it, so a token works once however many try at once. */
  async useToken(id: number, manager: EntityManager): Promise<boolean> {
    return ((await manager.delete(AccountTokenEntity, { id })).affected ?? 0) === 1;
  }

  /** When the user's live token of this purpose was issued, if there is one. */
  async tokenIssuedAt(userId: number, purpose: AccountTokenPurpose, now: number): Promise<number | undefined> {
    return (await this.tokens.findOneBy({ userId, purpose, expiresAt: MoreThan(now) }))?.createdAt;
  }

  /**
   * Voids the user's mailed links of this purpose. A reset link goes whenever the password or the
   * address changes (as Devise's recoverable clears its token): it was mailed to the address to
   * replace the password, and must not outlive either.
   */
  async deleteTokens(userId: number, purpose: AccountTokenPurpose, manager: EntityManager): Promise<void> {
    await manager.delete(AccountTokenEntity, { userId, purpose });
  }

  /** Counts a wrong password; the count after it (one statement each, so concurrent failures all count). */
  async countFailure(id: number, manager: EntityManager): Promise<number> {
    await manager.increment(UserEntity, { id }, 'failedAttempts', 1);
    return (await manager.findOne(UserEntity, { where: { id }, select: { id: true, failedAttempts: true } }))?.failedAttempts ?? 0;
  }

  /** Locks the account once its failures reach `threshold`; true for the one call that locked it. */
  async lock(id: number, threshold: number, now: number, manager: EntityManager): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(UserEntity)
      .set({ lockedAt: now })
      .where('id = :id AND locked_at IS NULL AND failed_attempts >= :threshold', { id, threshold })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** Lifts a lock (and forgets the failures); true when there was a lock to lift. */
  async unlock(id: number, manager: EntityManager): Promise<boolean> {
    const result = await manager.createQueryBuilder().update(UserEntity).set({ lockedAt: null, failedAttempts: 0 }).where('id = :id AND locked_at IS NOT NULL', { id }).execute();
    await manager.update(UserEntity, { id }, { failedAttempts: 0 });
    return (result.affected ?? 0) === 1;
  }

  /**
   * Ends the user's sessions, all of them or all but the one of `keepTokenHash`, and the sign-ins
   * waiting for a code (each began with a password); how many sessions ended.
   */
  async endSessions(userId: number, manager: EntityManager, keepTokenHash?: string): Promise<number> {
    await manager.delete(TwoFactorChallengeEntity, { userId });
    const query = manager.createQueryBuilder().delete().from(SessionEntity).where('user_id = :userId', { userId });
    if (keepTokenHash !== undefined) query.andWhere('token_hash <> :keepTokenHash', { keepTokenHash });
    return (await query.execute()).affected ?? 0;
  }

  async anyUser(): Promise<boolean> {
    return (await this.users.find({ select: { id: true }, take: 1 })).length > 0;
  }

  async hasBootCode(): Promise<boolean> {
    return (await this.codes.count()) > 0;
  }

  async addBootCode(codeHash: string, now: number): Promise<void> {
    await this.codes.insert({ codeHash, createdAt: now });
  }

  async deleteBootCodes(): Promise<void> {
    await this.codes.createQueryBuilder().delete().execute();
  }

  /**
   * Uses a boot code to make the first account, in one transaction: every code is locked first, in
   * one order (so two people with two replicas' codes queue rather than deadlock; SQLite runs one
   * writer at a time anyway), then the code is taken (a delete only one caller wins), no account
   * may exist yet, `create` runs and every other code goes. Null when the code is unknown, used,
   * or a concurrent first run won.
   */
  async redeemBootCode(codeHash: string, create: (manager: EntityManager) => Promise<UserEntity>): Promise<UserEntity | null> {
    try {
      return await this.transaction(async (manager) => {
        if (engineOf(manager.connection) !== 'sqlite') {
          await manager.createQueryBuilder(FirstRunCodeEntity, 'c').select('c.id').orderBy('c.id').setLock('pessimistic_write').getMany();
        }
        const taken = await manager.delete(FirstRunCodeEntity, { codeHash });
        if ((taken.affected ?? 0) !== 1) return null;
        if ((await manager.find(UserEntity, { select: { id: true }, take: 1 })).length > 0) throw new TooLate();
        const user = await create(manager);
        await manager.createQueryBuilder().delete().from(FirstRunCodeEntity).execute();
        return user;
      });
    } catch (error) {
      if (error instanceof TooLate) return null;
      throw error;
    }
  }
}

class TooLate extends Error {}
