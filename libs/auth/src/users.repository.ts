import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, IsNull, LessThanOrEqual, MoreThan, Repository } from 'typeorm';
import { Sql } from '@app/database';
import { AccountTokenEntity } from './account-token.entity';
import { ApiTokenEntity } from './api-token.entity';
import { SessionEntity } from './session.entity';
import { TwoFactorChallengeEntity } from './two-factor/two-factor-challenge.entity';
import { UserEntity } from './user.entity';

/** A token works while it has not expired and its user is not disabled: one indexed look-up decides both. */
const SELECT_USER_BY_TOKEN_HASH =
  'SELECT u.id, u.email, u.has_webhooks, u.admin FROM users u JOIN api_tokens t ON t.user_id = u.id WHERE t.token_hash = ? AND (t.expires_at IS NULL OR t.expires_at > ?) AND u.disabled_at IS NULL';

/** A user to insert: what every new account states; the rest starts empty. */
export type NewUser = Pick<UserEntity, 'email' | 'passwordHash' | 'hasWebhooks' | 'createdAt' | 'updatedAt'> &
  Partial<Pick<UserEntity, 'oidcIssuer' | 'oidcSubject' | 'admin' | 'confirmedAt' | 'preferredLanguage'>>;

/** Who a single sign-on names: the provider and its `sub`. */
export interface Identity {
  issuer: string;
  subject: string;
}

/** Users, their API tokens and their sessions (both looked up by the SHA-256 of a random token). */
@Injectable()
export class UsersRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(ApiTokenEntity) private readonly tokens: Repository<ApiTokenEntity>,
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    private readonly sql: Sql,
  ) {}

  /** Runs `work` in one transaction; what it writes through the manager commits together. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.users.manager.transaction(work);
  }

  insertUser(user: NewUser, manager: EntityManager = this.users.manager): Promise<UserEntity> {
    return manager.save(
      manager.create(UserEntity, {
        oidcIssuer: null,
        oidcSubject: null,
        disabledAt: null,
        admin: false,
        confirmedAt: null,
        unconfirmedEmail: null,
        failedAttempts: 0,
        lockedAt: null,
        preferredLanguage: null,
        lastSignInAt: null,
        lastSignInIp: null,
        ...user,
      }),
    );
  }

  /** Sets the administrator flag; whether it changed. */
  async setAdmin(id: number, admin: boolean, now: number, manager: EntityManager = this.users.manager): Promise<boolean> {
    const updated = await manager.update(UserEntity, { id, admin: !admin }, { admin, updatedAt: now });
    return (updated.affected ?? 0) > 0;
  }

  /**
   * The user with exactly this address. MySQL's collation takes distinct addresses for one
   * (`\u212Aate@...`, `kāte@...` and `kate@...` are equal to it), so the row it finds must also be
   * this address character for character; its unique index allows no second, exact row beside it.
   */
  async findByEmail(email: string): Promise<UserEntity | null> {
    const user = await this.users.findOneBy({ email });
    return user?.email === email ? user : null;
  }

  findByIdentity(identity: Identity): Promise<UserEntity | null> {
    return this.users.findOneBy({ oidcIssuer: identity.issuer, oidcSubject: identity.subject });
  }

  /** Links the user to the identity unless they are linked to one already; whether it did. */
  async linkIdentity(id: number, identity: Identity, now: number): Promise<boolean> {
    const updated = await this.users.update({ id, oidcSubject: IsNull() }, { oidcIssuer: identity.issuer, oidcSubject: identity.subject, updatedAt: now });
    return (updated.affected ?? 0) > 0;
  }

  listUsers(): Promise<UserEntity[]> {
    return this.users.find({ order: { id: 'ASC' } });
  }

  countUsers(): Promise<number> {
    return this.users.count();
  }

  /** A page of people in the order they came, those whose address contains `search` (any case) when given. */
  findPage(search: string | undefined, offset: number, limit: number): Promise<UserEntity[]> {
    const query = this.users.createQueryBuilder('u').orderBy('u.id', 'ASC').offset(offset).limit(limit);
    // Addresses are stored lower-cased (ASCII); % and _ typed by the administrator match themselves.
    if (search) query.where("u.email LIKE :pattern ESCAPE '!'", { pattern: `%${search.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%` });
    return query.getMany();
  }

  findByIds(ids: number[]): Promise<UserEntity[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.users.findBy({ id: In(ids) });
  }

  findById(id: number): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  async deleteUser(id: number, manager: EntityManager = this.users.manager): Promise<void> {
    await manager.delete(UserEntity, { id });
  }

  /** Disables the user and, in the same transaction, ends their sessions and revokes their tokens. */
  async disableUser(id: number, now: number): Promise<{ sessions: number; tokens: number }> {
    return this.users.manager.transaction(async (manager) => {
      await manager.update(UserEntity, { id }, { disabledAt: now, updatedAt: now });
      const sessions = (await manager.delete(SessionEntity, { userId: id })).affected ?? 0;
      const tokens = (await manager.delete(ApiTokenEntity, { userId: id })).affected ?? 0;
      return { sessions, tokens };
    });
  }

  async enableUser(id: number, now: number): Promise<void> {
    await this.users.update({ id }, { disabledAt: null, updatedAt: now });
  }

  async tokenCounts(): Promise<Map<number, number>> {
    const rows: { userId: number; n: string | number }[] = await this.tokens
      .createQueryBuilder('t')
      .select('t.user_id', 'userId')
      .addSelect('COUNT(*)', 'n')
      .groupBy('t.user_id')
      .getRawMany();
    return new Map(rows.map((row) => [Number(row.userId), Number(row.n)]));
  }

  /** Issues or rotates the user's token of this name: the old hash is replaced in one statement. */
  async upsertToken(token: Omit<ApiTokenEntity, 'id'>): Promise<void> {
    const { userId, name, ...rest } = token;
    const updated = await this.tokens.update({ userId, name }, rest);
    if (updated.affected === 0) await this.tokens.insert(token);
  }

  /**
   * A new password, set by an administrator: the lock and failures go, the sessions end (how many
   * is returned), and so do the sign-ins waiting for a code and a mailed reset link.
   */
  async resetPassword(id: number, passwordHash: string, confirmedAt: number, now: number, manager: EntityManager): Promise<number> {
    await manager.update(UserEntity, { id }, { passwordHash, confirmedAt, lockedAt: null, failedAttempts: 0, updatedAt: now });
    await manager.delete(AccountTokenEntity, { userId: id, purpose: 'reset' });
    await manager.delete(TwoFactorChallengeEntity, { userId: id });
    return (await manager.delete(SessionEntity, { userId: id })).affected ?? 0;
  }

  listTokens(userId: number): Promise<ApiTokenEntity[]> {
    return this.tokens.find({ where: { userId }, order: { name: 'ASC' } });
  }

  findToken(userId: number, name: string): Promise<ApiTokenEntity | null> {
    return this.tokens.findOneBy({ userId, name });
  }

  async deleteToken(userId: number, name: string): Promise<boolean> {
    return ((await this.tokens.delete({ userId, name })).affected ?? 0) > 0;
  }

  async deleteTokens(userId: number): Promise<number> {
    return (await this.tokens.delete({ userId })).affected ?? 0;
  }

  /** The owner of a token hash, if the token works at `now`; plain SQL (see Sql), as every request with a token runs it. */
  async findUserByTokenHash(tokenHash: string, now: number): Promise<Pick<UserEntity, 'id' | 'email' | 'hasWebhooks' | 'admin'> | null> {
    const [row] = await this.sql.rows<{ id: unknown; email: string; has_webhooks: unknown; admin: unknown }>(SELECT_USER_BY_TOKEN_HASH, [tokenHash, now]);
    // SQLite and MySQL answer 1 or 0, PostgreSQL a boolean.
    return row ? { id: Number(row.id), email: row.email, hasWebhooks: Number(row.has_webhooks) === 1, admin: Boolean(Number(row.admin)) } : null;
  }

  /** Starts a session, dropping the user's lapsed ones (so they never pile up). */
  async insertSession(session: Omit<SessionEntity, 'id'>): Promise<void> {
    await this.sessions.delete({ userId: session.userId, expiresAt: LessThanOrEqual(session.createdAt) });
    await this.sessions.insert(session);
  }

  /** The session of a hash and its user, while the session lasts at `now` and the user is not disabled. */
  async findSessionUser(tokenHash: string, now: number): Promise<{ session: Pick<SessionEntity, 'id' | 'expiresAt' | 'remember'>; user: UserEntity } | null> {
    const session = await this.sessions.findOne({ where: { tokenHash, expiresAt: MoreThan(now) }, select: { id: true, userId: true, expiresAt: true, remember: true } });
    if (!session) return null;
    const user = await this.users.findOneBy({ id: session.userId, disabledAt: IsNull() });
    return user ? { session, user } : null;
  }

  /** Moves a session's expiry, unless another request moved it first (the same value is then written once). */
  async slideSession(id: number, from: number, to: number): Promise<void> {
    await this.sessions.update({ id, expiresAt: from }, { expiresAt: to });
  }

  /** Ends a session; returns its (encrypted) ID token, if it was a single sign-on. */
  async deleteSession(tokenHash: string): Promise<{ idToken: Buffer | null } | null> {
    const session = await this.sessions.findOne({ where: { tokenHash }, select: { id: true, idToken: true } });
    if (!session) return null;
    await this.sessions.delete({ id: session.id });
    return { idToken: session.idToken };
  }
}
