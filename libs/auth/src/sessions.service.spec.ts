import { Clock, HOUR_MS, MINUTE_MS } from '@app/common';
import { loadSettings } from '@app/config';
import { FieldCipher } from '@app/crypto';
import { REMEMBER_MS, SessionsService } from './sessions.service';
import type { UsersRepository } from './users.repository';

/** Sessions over a repository kept in memory: only the timing rules are under test here. */
class MemorySessions {
  rows: { id: number; tokenHash: string; expiresAt: number; remember: boolean }[] = [];
  writes = 0;

  insertSession(row: { tokenHash: string; expiresAt: number; remember: boolean }): Promise<void> {
    this.rows.push({ id: this.rows.length + 1, ...row });
    return Promise.resolve();
  }

  findSessionUser(tokenHash: string, now: number) {
    const session = this.rows.find((row) => row.tokenHash === tokenHash && row.expiresAt > now);
    return Promise.resolve(session ? { session: { ...session }, user: { id: 1, email: 'a@example.com', hasWebhooks: false } } : null);
  }

  slideSession(id: number, from: number, to: number): Promise<void> {
    const row = this.rows.find((entry) => entry.id === id && entry.expiresAt === from);
    if (row) {
      row.expiresAt = to;
      this.writes++;
    }
    return Promise.resolve();
  }
}

class FixedClock extends Clock {
  constructor(private at: number) {
    super();
  }

  override now(): number {
    return this.at;
  }

  advance(ms: number): void {
    this.at += ms;
  }
}

describe('SessionsService timing', () => {
  const user = { id: 1, email: 'a@example.com', hasWebhooks: false };
  let repository: MemorySessions;
  let clock: FixedClock;
  let sut: SessionsService;

  beforeEach(() => {
    repository = new MemorySessions();
    clock = new FixedClock(1_700_000_000_000);
    sut = new SessionsService(repository as unknown as UsersRepository, clock, new FieldCipher('a'.repeat(64)), loadSettings({ PWP__LOGIN_SESSION_TIMEOUT: '2 hours' }));
  });

  it('ends a session after the timeout without a request, and moves the end with each request, written at most once a minute', async () => {
    const token = await sut.start(user);
    expect(repository.rows[0].expiresAt).toBe(clock.now() + 2 * HOUR_MS);
    for (let n = 0; n < 10; n++) {
      clock.advance(5_000);
      await expect(sut.userOf(token)).resolves.toEqual(user);
    }
    expect(repository.writes).toBe(0);
    clock.advance(15_000);
    await sut.userOf(token);
    expect([repository.writes, repository.rows[0].expiresAt]).toEqual([1, clock.now() + 2 * HOUR_MS]);
    // Used every hour, it lives on; idle for the timeout, it is over.
    for (let n = 0; n < 5; n++) {
      clock.advance(HOUR_MS);
      await expect(sut.userOf(token)).resolves.toEqual(user);
    }
    clock.advance(2 * HOUR_MS);
    await expect(sut.userOf(token)).resolves.toBeNull();
  });

  it('keeps a remembered session a week from sign-in, however idle, and never moves its end', async () => {
    const token = await sut.start(user, { remember: true });
    expect(SessionsService.cookieLifetimeMs({ remember: true })).toBe(REMEMBER_MS);
    expect(SessionsService.cookieLifetimeMs({})).toBeUndefined();
    clock.advance(REMEMBER_MS - MINUTE_MS);
    await expect(sut.userOf(token)).resolves.toEqual(user);
    expect(repository.writes).toBe(0);
    clock.advance(MINUTE_MS);
    await expect(sut.userOf(token)).resolves.toBeNull();
  });

  it('refuses a token that is not one before asking the database', async () => {
    await expect(sut.userOf('short')).resolves.toBeNull();
  });
});
