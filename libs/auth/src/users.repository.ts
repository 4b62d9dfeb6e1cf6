import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, Repository } from 'typeorm';
import { Sql } from '@app/database';
import { ApiTokenEntity } from './api-token.entity';
import { SessionEntity } from './session.entity';
import { UserEntity } from './user.entity';

const SELECT_USER_BY_TOKEN_HASH = 'SELECT u.id, u.email, u.has_webhooks FROM users u JOIN api_tokens t ON t.user_id = u.id WHERE t.token_hash = ?';

/** Users, their API tokens and their sessions (both looked up by the SHA-256 of a random token). */
@Injectable()
export class UsersRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(ApiTokenEntity) private readonly tokens: Repository<ApiTokenEntity>,
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    private readonly sql: Sql,
  ) {}

  insertUser(user: Omit<UserEntity, 'id'>): Promise<UserEntity> {
    return this.users.save(this.users.create(user));
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ email });
  }

  listUsers(): Promise<UserEntity[]> {
    return this.users.find({ order: { id: 'ASC' } });
  }

  async deleteUser(id: number): Promise<void> {
    await this.users.delete({ id });
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
  async upsertToken(userId: number, name: string, tokenHash: string, now: number): Promise<void> {
    const updated = await this.tokens.update({ userId, name }, { tokenHash, createdAt: now });
    if (updated.affected === 0) await this.tokens.insert({ userId, name, tokenHash, createdAt: now });
  }

  async setPasswordHash(id: number, passwordHash: string, now: number): Promise<void> {
    await this.users.update({ id }, { passwordHash, updatedAt: now });
  }

  listTokens(userId: number): Promise<ApiTokenEntity[]> {
    return this.tokens.find({ where: { userId }, order: { name: 'ASC' } });
  }

  async deleteToken(userId: number, name: string): Promise<boolean> {
    return ((await this.tokens.delete({ userId, name })).affected ?? 0) > 0;
  }

  async deleteTokens(userId: number): Promise<number> {
    return (await this.tokens.delete({ userId })).affected ?? 0;
  }

  /** The owner of a token hash, if the token exists; plain SQL (see Sql), as every request with a token runs it. */
  async findUserByTokenHash(tokenHash: string): Promise<Pick<UserEntity, 'id' | 'email' | 'hasWebhooks'> | null> {
    const [row] = await this.sql.rows<{ id: unknown; email: string; has_webhooks: unknown }>(SELECT_USER_BY_TOKEN_HASH, [tokenHash]);
    return row ? { id: Number(row.id), email: row.email, hasWebhooks: Number(row.has_webhooks) === 1 } : null;
  }

  /** Starts a session, dropping the user's lapsed ones (so they never pile up). */
  async insertSession(session: Omit<SessionEntity, 'id'>): Promise<void> {
    await this.sessions.delete({ userId: session.userId, expiresAt: LessThanOrEqual(session.createdAt) });
    await this.sessions.insert(session);
  }

  /** The user of a session hash, while the session lasts at `now`. */
  findUserBySessionHash(tokenHash: string, now: number): Promise<UserEntity | null> {
    return this.users
      .createQueryBuilder('u')
      .innerJoin(SessionEntity, 's', 's.user_id = u.id')
      .where('s.token_hash = :tokenHash AND s.expires_at > :now', { tokenHash, now })
      .getOne();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.sessions.delete({ tokenHash });
  }
}
