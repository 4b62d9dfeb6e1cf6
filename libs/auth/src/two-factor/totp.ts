import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** A code of the step before or after the current one is accepted too: clocks drift, people type slowly. */
const DRIFT_STEPS = 1;
/** RFC 4226's recommended length for an HMAC-SHA-1 key: 160 bits. */
const SECRET_BYTES = 20;

const totp = (secret: string, issuer = '', label = '') =>
  new TOTP({
    issuer,
    label,
    issuerInLabel: issuer !== '',
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
  });

/** A new secret, in base32 (how authenticator apps take it typed). */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function provisioningUri(secret: string, issuer: string, label: string): string {
  return totp(secret, issuer, label).toString();
}

/**
 * The time step of `code` for `secret` at `nowMs`, when the code is right within the drift
 * allowed; else null. Which step matters: a code is accepted only for a step later than the last
 * one accepted (the caller's conditional UPDATE), so no code works twice.
 */
export function totpStep(secret: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: nowMs, window: DRIFT_STEPS });
  return delta === null ? null : TOTP.counter({ period: PERIOD_SECONDS, timestamp: nowMs }) + delta;
}
