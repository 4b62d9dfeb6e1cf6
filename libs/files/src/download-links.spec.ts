import { randomBytes } from 'node:crypto';
import { DownloadLinks } from './download-links';

describe('DownloadLinks', () => {
  const sut = new DownloadLinks(randomBytes(32));
  const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
  const link = sut.sign(7, 42, NOW + 300_000);

  it('names its file for its push until it expires', () => {
    expect(link).toMatch(/^[\w-]{39}$/);
    expect(sut.verify(link, 7, NOW)).toBe(42);
    expect(sut.verify(link, 7, NOW + 299_000)).toBe(42);
  });

  it('is refused once expired', () => {
    expect(sut.verify(link, 7, NOW + 300_000)).toBeNull();
  });

  it('is refused on another push', () => {
    expect(sut.verify(link, 8, NOW)).toBeNull();
  });

  it('is refused with any character changed', () => {
    for (let i = 0; i < link.length; i++) {
      const altered = `${link.slice(0, i)}${link[i] === 'A' ? 'B' : 'A'}${link.slice(i + 1)}`;
      expect([i, sut.verify(altered, 7, NOW)]).toEqual([i, null]);
    }
  });

  it('is refused when its last character differs only in bits the bytes do not use', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(link[link.length - 1]);
    // The last character's two low bits are spare: these three spell the same 29 bytes.
    const sameBytes = [1, 2, 3].map((spare) => `${link.slice(0, -1)}${alphabet[last ^ spare]}`);
    for (const altered of sameBytes) expect(Buffer.from(altered, 'base64url')).toEqual(Buffer.from(link, 'base64url'));
    for (const altered of sameBytes) expect(sut.verify(altered, 7, NOW)).toBeNull();
  });

  it('is refused when signed with another key, cut short or padded', () => {
    expect(new DownloadLinks(randomBytes(32)).verify(link, 7, NOW)).toBeNull();
    expect(sut.verify(link.slice(0, -1), 7, NOW)).toBeNull();
    expect(sut.verify(`${link}A`, 7, NOW)).toBeNull();
    expect(sut.verify('../../etc/passwd', 7, NOW)).toBeNull();
  });
});
