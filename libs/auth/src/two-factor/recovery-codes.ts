import { createHmac, randomBytes } from 'node:crypto';

/** The reference's recovery codes: 16 of them, each 10 hex characters (40 random bits). */
export const RECOVERY_CODES = { count: 16, bytes: 5 } as const;
const RECOVERY_CODE = /^[0-9a-f]{10}$/;

/** A new set of recovery codes, to be shown once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES.count }, () => randomBytes(RECOVERY_CODES.bytes).toString('hex'));
}

/** A code as typed (any case, spaces or dashes between groups) as it was issued, or null when it cannot be one. */
export function recoveryCode(typed: string): string | null {
  const code = typed.replace(/[\s-]/g, '').toLowerCase();
  return RECOVERY_CODE.test(code) ? code : null;
}

/**
 * How a code is stored: an HMAC under a key derived from the master key. Forty random bits are
 * few enough to try them all against a plain hash taken from a copy of the database; without the
 * key, the copy tells nothing.
 */
export function recoveryCodeHash(code: string, key: Buffer): string {
  return createHmac('sha256', key).update(code).digest('hex');
}
