import { Clock, HOUR_MS } from '@app/common';
import { loadSettings } from '@app/config';
import type { AccountMails } from './account-mails';
import type { AccountsRepository } from './accounts.repository';
import { LOCKOUT, Lockout } from './lockout';
import type { SecurityLog } from './security-log';
import type { UserEntity } from './user.entity';

const MAIL = { PWP__MAIL__SMTP_ADDRESS: '127.0.0.1', PWP__MAIL__MAILER_SENDER: 'pwpush@example.com', PWP__HOST_DOMAIN: 'pwpush.example.com' };
const CLIENT = { ip: '203.0.113.5', userAgent: 'test' };

/** The account's row and what was logged and mailed, in memory: the rules are under test, not the SQL. */
function fakes(at: number) {
  const account = { id: 7, email: 'a@example.com', lockedAt: null as number | null, failedAttempts: 0 } as UserEntity;
  const logged: string[] = [];
  const mailed: string[] = [];
  const clock = new (class extends Clock {
    override now = () => at;
  })();
  const repository = {
    transaction: <T>(work: (manager: unknown) => Promise<T>) => work({}),
    countFailure: () => Promise.resolve(++account.failedAttempts),
    lock: (_id: number, threshold: number, now: number) => {
      const locks = account.lockedAt === null && account.failedAttempts >= threshold;
      if (locks) account.lockedAt = now;
      return Promise.resolve(locks);
    },
    unlock: () => {
      const was = account.lockedAt !== null;
      account.lockedAt = null;
      account.failedAttempts = 0;
      return Promise.resolve(was);
    },
  };
  const mails = { sendLink: (_manager: unknown, _user: unknown, purpose: string) => Promise.resolve(void mailed.push(purpose)) };
  const log = { record: (event: { kind: string }) => Promise.resolve(void logged.push(event.kind)) };
  const build = (env: Record<string, string>) =>
    new Lockout(repository as unknown as AccountsRepository, mails as unknown as AccountMails, log as unknown as SecurityLog, clock, loadSettings(env));
  return { account, logged, mailed, build, move: (ms: number) => (at += ms) };
}

describe('Lockout', () => {
  it('locks at the tenth failure, once, mailing the unlock link, and lifts the lock an hour later', async () => {
    const { account, logged, mailed, build, move } = fakes(1_700_000_000_000);
    const sut = build({ ...MAIL, PWP__ENABLE_USER_ACCOUNT_EMAILS: 'true' });
    for (let n = 1; n < LOCKOUT.attempts; n++) await sut.failed(account, CLIENT, 'sign_in_failed');
    expect([await sut.isLocked(account), mailed]).toEqual([false, []]);
    await sut.failed(account, CLIENT, 'two_factor_failed');
    await sut.failed(account, CLIENT, 'sign_in_failed');
    expect([await sut.isLocked(account), mailed, logged.filter((kind) => kind === 'locked')]).toEqual([true, ['unlock'], ['locked']]);
    move(HOUR_MS - 1);
    expect(await sut.isLocked(account)).toBe(true);
    move(1);
    expect([await sut.isLocked(account), account.failedAttempts, logged[logged.length - 1]]).toEqual([false, 0, 'unlocked']);
  });

  it('without account emails logs the failures but never counts nor locks (the per-address limits remain)', async () => {
    const { account, logged, mailed, build } = fakes(1_700_000_000_000);
    const sut = build({});
    for (let n = 0; n < 2 * LOCKOUT.attempts; n++) await sut.failed(account, CLIENT, 'sign_in_failed');
    expect([account.failedAttempts, account.lockedAt, mailed, logged.length]).toEqual([0, null, [], 2 * LOCKOUT.attempts]);
    account.lockedAt = 1;
    expect(await sut.isLocked(account)).toBe(false);
  });
});
