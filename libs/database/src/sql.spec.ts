import { advisoryLockKey } from './named-lock';
import { forPostgres } from './sql';

describe('forPostgres', () => {
  it('numbers the placeholders and leaves string literals alone', () => {
    expect(forPostgres("SELECT id FROM pushes WHERE user_id = ? AND kind = 'a?b' AND expires_at <= ?")).toBe(
      "SELECT id FROM pushes WHERE user_id = $1 AND kind = 'a?b' AND expires_at <= $2",
    );
  });

  it('makes an INSERT return the new row id, as MySQL and SQLite report it', () => {
    expect(forPostgres('INSERT INTO audit_entries (push_id, kind) VALUES (?, ?)')).toBe('INSERT INTO audit_entries (push_id, kind) VALUES ($1, $2) RETURNING id');
  });

  it('leaves other statements as they are', () => {
    expect(forPostgres('UPDATE pushes SET expired = TRUE WHERE id = ? AND expired = FALSE')).toBe('UPDATE pushes SET expired = TRUE WHERE id = $1 AND expired = FALSE');
  });
});

describe('advisoryLockKey', () => {
  it('is a stable signed 64-bit number per name', () => {
    const sut = advisoryLockKey('pwpush_migrations');
    expect(sut).toBe(advisoryLockKey('pwpush_migrations'));
    expect(sut).not.toBe(advisoryLockKey('pwpush_expiry_sweep'));
    expect(BigInt(sut)).toBeGreaterThanOrEqual(-(2n ** 63n));
    expect(BigInt(sut)).toBeLessThan(2n ** 63n);
  });
});
