import { Secret, TOTP } from 'otpauth';
import { newTotpSecret, provisioningUri, totpStep } from './totp';

/** RFC 6238, Appendix B: the SHA-1 seed "12345678901234567890" (base32 below); 6 digits are the last 6 of its 8. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: [seconds: number, code: string][] = [
  [59, '287082'],
  [1111111109, '081804'],
  [1111111111, '050471'],
  [1234567890, '005924'],
  [2000000000, '279037'],
];

/** An authenticator app's code, by the library itself. */
const totpCode = (secret: string, nowMs: number): string => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: nowMs });

describe('TOTP', () => {
  it.each(RFC_VECTORS)('gives the RFC 6238 code at %i s and accepts it at its step', (seconds, code) => {
    expect(totpCode(RFC_SECRET, seconds * 1000)).toBe(code);
    expect(totpStep(RFC_SECRET, code, seconds * 1000)).toBe(Math.floor(seconds / 30));
  });

  it('accepts one step of drift either way, and no more', () => {
    const now = 1_800_000_000_000;
    const secret = newTotpSecret();
    const step = Math.floor(now / 30_000);
    expect(totpStep(secret, totpCode(secret, now - 30_000), now)).toBe(step - 1);
    expect(totpStep(secret, totpCode(secret, now + 30_000), now)).toBe(step + 1);
    expect(totpStep(secret, totpCode(secret, now - 60_000), now)).toBeNull();
    expect(totpStep(secret, totpCode(secret, now + 60_000), now)).toBeNull();
  });

  it('refuses anything but six digits', () => {
    expect(totpStep(RFC_SECRET, '28708', 59_000)).toBeNull();
    expect(totpStep(RFC_SECRET, '2870820', 59_000)).toBeNull();
    expect(totpStep(RFC_SECRET, ' 287082', 59_000)).toBeNull();
  });

  it('makes 160-bit secrets and the URI authenticator apps read, with the issuer and the email as its label', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    expect(provisioningUri(secret, 'Acme Pusher', 'kate@example.com')).toBe(
      `otpauth://totp/Acme%20Pusher:kate%40example.com?issuer=Acme%20Pusher&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
    );
  });
});
