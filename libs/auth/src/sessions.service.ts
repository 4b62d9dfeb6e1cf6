import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { LessThanOrEqual, Repository } from 'typeorm';
import { Clock } from '@app/common';
import { randomToken } from '@app/crypto';
import type { AuthenticatedUser } from './authenticated-user';
import { SessionEntity } from './session.entity';
import { UserEntity } from './user.entity';

/** How long a sign-in lasts. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Signed-in browsers. A session is a random 256-bit token in a cookie and a row holding its hash,
 * so it works on every replica, ends everywhere at once when its user signs out, and a copy of the
 * database gives nobody a usable cookie. Each sign-in starts a new session (a new token).
 */
@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly clock: Clock,
  ) {}

  /** Starts a session for the user; returns the cookie's token. Drops the user's lapsed sessions. */
  async start(user: AuthenticatedUser): Promise<string> {
    const now = this.clock.now();
    await this.sessions.delete({ userId: user.id, expiresAt: LessThanOrEqual(now) });
    const token = randomToken(32);
    await this.sessions.insert({ tokenHash: hashOf(token), userId: user.id, createdAt: now, expiresAt: now + SESSION_LIFETIME_MS });
    return token;
  }

  /** The user a cookie's token signs in, while its session lasts. */
  async userOf(token: string): Promise<AuthenticatedUser | null> {
    if (!/^[\w-]{43}$/.test(token)) return null;
    const user = await this.users
      .createQueryBuilder('u')
      .innerJoin(SessionEntity, 's', 's.user_id = u.id')
      .where('s.token_hash = :hash AND s.expires_at > :now', { hash: hashOf(token), now: this.clock.now() })
      .getOne();
    return user ? { id: user.id, email: user.email } : null;
  }

  async end(token: string): Promise<void> {
    await this.sessions.delete({ tokenHash: hashOf(token) });
  }
}
