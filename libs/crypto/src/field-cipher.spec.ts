import { FieldCipher } from './field-cipher';

const OLD_KEY = '11'.repeat(32);
const NEW_KEY = '22'.repeat(32);
const OTHER_KEY = '33'.repeat(32);
const CONTEXT = 'payload:AbCdEf123';
const SECRET = 'correct horse battery staple, ünïcödé and 😀';

/** Layout: version (1) | key id (4) | nonce (12) | tag (16) | ciphertext. */
const KEY_ID = { start: 1, end: 5 };

describe('FieldCipher', () => {
  const sut = new FieldCipher(NEW_KEY);

  it('round-trips text, including the empty string and astral characters', () => {
    expect(sut.decrypt(sut.encrypt(SECRET, CONTEXT), CONTEXT)).toBe(SECRET);
    expect(sut.decrypt(sut.encrypt('', CONTEXT), CONTEXT)).toBe('');
    const long = 'x'.repeat(1_048_576);
    expect(sut.decrypt(sut.encrypt(long, CONTEXT), CONTEXT)).toBe(long);
  });

  it('uses a fresh nonce: the same plaintext twice gives different ciphertexts', () => {
    const first = sut.encrypt(SECRET, CONTEXT);
    const second = sut.encrypt(SECRET, CONTEXT);
    expect(first.equals(second)).toBe(false);
    expect(first.subarray(5, 17).equals(second.subarray(5, 17))).toBe(false);
    expect([sut.decrypt(first, CONTEXT), sut.decrypt(second, CONTEXT)]).toEqual([SECRET, SECRET]);
  });

  it('does not contain the plaintext', () => {
    const plaintext = 'a recognisable secret that must not appear in the database '.repeat(4);
    const sealed = sut.encrypt(plaintext, CONTEXT);
    expect(sealed.includes(Buffer.from(plaintext, 'utf8'))).toBe(false);
    expect(sealed.includes(Buffer.from('recognisable', 'utf8'))).toBe(false);
    expect(sealed.toString('latin1')).not.toContain('secret');
  });

  it.each(['payload:other-token', 'note:AbCdEf123', '', `${CONTEXT} `])('refuses to decrypt under another context (%j)', (context) => {
    const sealed = sut.encrypt(SECRET, CONTEXT);
    expect(() => sut.decrypt(sealed, context)).toThrow();
  });

  it.each([
    ['the version', 0],
    ['the key id', KEY_ID.start],
    ['the nonce', 10],
    ['the tag', 20],
    ['the ciphertext', 33],
    ['the last byte', -1],
  ])('refuses a value with a tampered byte in %s', (_part, offset) => {
    const sealed = sut.encrypt(SECRET, CONTEXT);
    const index = offset < 0 ? sealed.length + offset : offset;
    sealed[index] ^= 0x01;
    expect(() => sut.decrypt(sealed, CONTEXT)).toThrow();
  });

  it('refuses a truncated value and one too short to hold a header', () => {
    const sealed = sut.encrypt(SECRET, CONTEXT);
    expect(() => sut.decrypt(sealed.subarray(0, sealed.length - 1), CONTEXT)).toThrow();
    expect(() => sut.decrypt(sealed.subarray(0, 20), CONTEXT)).toThrow('Unrecognised ciphertext format.');
    expect(() => sut.decrypt(Buffer.alloc(0), CONTEXT)).toThrow('Unrecognised ciphertext format.');
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new FieldCipher('ab'.repeat(16))).toThrow('An encryption key must be 32 bytes (64 hex characters).');
    expect(() => new FieldCipher(NEW_KEY, ['ab'.repeat(31)])).toThrow('An encryption key must be 32 bytes (64 hex characters).');
  });

  describe('key rotation', () => {
    const before = new FieldCipher(OLD_KEY);
    const rotated = new FieldCipher(NEW_KEY, [OLD_KEY]);

    it('decrypts a value written under the previous key', () => {
      const sealed = before.encrypt(SECRET, CONTEXT);
      expect(rotated.decrypt(sealed, CONTEXT)).toBe(SECRET);
    });

    it('writes new values under the current key only', () => {
      const sealed = rotated.encrypt(SECRET, CONTEXT);
      expect(new FieldCipher(NEW_KEY).decrypt(sealed, CONTEXT)).toBe(SECRET);
      expect(() => before.decrypt(sealed, CONTEXT)).toThrow();
    });

    it('refuses a value under an unknown key, naming the key id but not the key', () => {
      const sealed = new FieldCipher(OTHER_KEY).encrypt(SECRET, CONTEXT);
      const keyId = sealed.subarray(KEY_ID.start, KEY_ID.end).toString('hex');
      let message = '';
      try {
        rotated.decrypt(sealed, CONTEXT);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(keyId);
      expect(message).toContain('PWPUSH_MASTER_KEY_PREVIOUS');
      for (const key of [OTHER_KEY, NEW_KEY, OLD_KEY]) {
        expect(message.toLowerCase()).not.toContain(key);
        expect(message.toLowerCase()).not.toContain(key.slice(0, 16));
      }
    });

    it('derives a purpose\'s key from every key of the ring, the current one first', () => {
      expect(rotated.deriveKeys('p')).toEqual([new FieldCipher(NEW_KEY).deriveKey('p'), before.deriveKey('p')]);
      expect(rotated.deriveKeys('p')[0]).not.toEqual(rotated.deriveKeys('q')[0]);
    });

    it('gives different keys different ids', () => {
      const idOf = (cipher: FieldCipher) => cipher.encrypt('', CONTEXT).subarray(KEY_ID.start, KEY_ID.end).toString('hex');
      expect(new Set([idOf(before), idOf(rotated), idOf(new FieldCipher(OTHER_KEY))]).size).toBe(3);
      expect(idOf(rotated)).toBe(idOf(new FieldCipher(NEW_KEY)));
    });
  });
});
