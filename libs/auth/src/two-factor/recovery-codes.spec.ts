import { newRecoveryCodes, recoveryCode, recoveryCodeHash } from './recovery-codes';

describe('recovery codes', () => {
  it('are 16 different codes of 10 hex characters', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(16);
    for (const code of codes) expect(code).toMatch(/^[0-9a-f]{10}$/);
    expect(new Set(codes).size).toBe(16);
  });

  it('are read as typed: any case, with spaces or dashes', () => {
    expect(recoveryCode(' 0A1B2-c3d4E ')).toBe('0a1b2c3d4e');
    expect(recoveryCode('0a1b 2c3d 4e')).toBe('0a1b2c3d4e');
    expect(recoveryCode('0a1b2c3d4')).toBeNull();
    expect(recoveryCode('0a1b2c3d4g')).toBeNull();
    expect(recoveryCode('123456')).toBeNull();
  });

  it('are stored as an HMAC under a key: another key gives another hash, and the code is not in it', () => {
    const key = Buffer.alloc(32, 1);
    const hash = recoveryCodeHash('0a1b2c3d4e', key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(recoveryCodeHash('0a1b2c3d4e', key)).toBe(hash);
    expect(recoveryCodeHash('0a1b2c3d4e', Buffer.alloc(32, 2))).not.toBe(hash);
  });
});
