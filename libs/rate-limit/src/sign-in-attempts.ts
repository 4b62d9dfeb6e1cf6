import { Injectable } from '@nestjs/common';
import { normalizeIp } from '@nestjs/throttler';
import { createHash } from 'node:crypto';
import { FailedAttempts } from './failed-attempts';

/**
 * Failed sign-ins allowed per minute, counted three ways, as the reference throttles per address
 * and per email:
 * - one account from one address: a person mistyping, or one attacker guessing that password;
 * - one address over all accounts: one attacker trying many;
 * - one account from everywhere: many addresses guessing one password. Higher than the first, so
 *   that an attacker elsewhere cannot lock the owner out by failing on purpose: that takes a
 *   distributed attack from at least four addresses (each held to 30 a minute by the second).
 */
export const SIGN_IN_LIMITS = { accountFromAddress: 10, address: 30, account: 100 } as const;

/**
 * The sign-in lockout over FailedAttempts (shared through Redis when configured). Keys are
 * digests, so Redis holds neither addresses nor emails; IPv6 clients count per /64 as for the
 * request limits, since one host has a whole /64 to choose addresses from.
 */
@Injectable()
export class SignInAttempts {
  constructor(private readonly attempts: FailedAttempts) {}

  /** Seconds until this address may try this account again, or 0 when it may now. */
  async blockedFor(email: string, address: string): Promise<number> {
    const waits = await Promise.all(windows(email, address).map(([key, limit]) => this.attempts.blockedFor(key, limit)));
    return Math.max(...waits);
  }

  async recordFailure(email: string, address: string): Promise<void> {
    await Promise.all(windows(email, address).map(([key]) => this.attempts.recordFailure(key)));
  }

  /**
   * An attempt counted in every window before it is tried, atomically, so that attempts sent
   * together cannot outrun the limits: seconds to wait when a window is spent (the attempt, not
   * to be tried, is then given back at once, so that refusals from one address cannot spend the
   * account's own window), else 0. `giveBack` an attempt that was not a failure.
   */
  async take(email: string, address: string): Promise<number> {
    const waits = await Promise.all(windows(email, address).map(([key, limit]) => this.attempts.take(key, limit)));
    const wait = Math.max(...waits);
    if (wait > 0) await this.giveBack(email, address);
    return wait;
  }

  async giveBack(email: string, address: string): Promise<void> {
    await Promise.all(windows(email, address).map(([key]) => this.attempts.giveBack(key)));
  }
}

function windows(email: string, address: string): [key: string, limit: number][] {
  const client = normalizeIp(address);
  return [
    [`signin:account-address:${digest(email, client)}`, SIGN_IN_LIMITS.accountFromAddress],
    [`signin:address:${digest(client)}`, SIGN_IN_LIMITS.address],
    [`signin:account:${digest(email)}`, SIGN_IN_LIMITS.account],
  ];
}

const digest = (...parts: string[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 24);
