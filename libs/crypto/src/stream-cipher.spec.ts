import { randomBytes } from 'node:crypto';
import { Readable, type Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { CHUNK_BYTES, chunkRange, decryptStream, encryptStream, sealedSize, StreamIntegrityError, StreamKey } from './stream-cipher';

/** Feeds `data` through `transform` in slices of the given sizes (cycled), as a network would. */
async function through(transform: Transform, data: Buffer, slices = [7, 1000, CHUNK_BYTES + 3, 1]): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let offset = 0, i = 0; offset < data.length; i++) {
    const size = slices[i % slices.length];
    parts.push(data.subarray(offset, offset + size));
    offset += size;
  }
  return buffer(Readable.from(parts).pipe(transform));
}

const seal = (key: StreamKey, plaintext: Buffer) => through(encryptStream(key), plaintext);
const open = (key: StreamKey, sealed: Buffer, size: number, start?: number, end?: number) => {
  const range = chunkRange(size, start, end);
  return through(decryptStream(key, size, range), sealed.subarray(range.sealedStart, range.sealedEnd + 1));
};

describe('the chunked stream cipher (STREAM construction)', () => {
  const key = StreamKey.generate();

  it.each([0, 1, 100, CHUNK_BYTES - 1, CHUNK_BYTES, CHUNK_BYTES + 1, 2 * CHUNK_BYTES, 3 * CHUNK_BYTES + 5])(
    'round-trips %i bytes, with the stored size sealedSize says',
    async (size) => {
      const plaintext = randomBytes(size);
      const sealed = await seal(key, plaintext);
      expect(sealed.length).toBe(sealedSize(size));
      expect((await open(key, sealed, size)).equals(plaintext)).toBe(true);
    },
  );

  it('never stores the plaintext', async () => {
    const plaintext = Buffer.from('the launch code is 0000 '.repeat(10_000));
    const sealed = await seal(key, plaintext);
    expect(sealed.includes(Buffer.from('launch code'))).toBe(false);
  });

  it('gives the same ciphertext length but different bytes for the same plaintext under another key', async () => {
    const plaintext = randomBytes(1000);
    const [a, b] = await Promise.all([seal(key, plaintext), seal(StreamKey.generate(), plaintext)]);
    expect(a.length).toBe(b.length);
    expect(a.equals(b)).toBe(false);
  });

  it.each([
    [0, 0],
    [0, 9],
    [5, 5],
    [CHUNK_BYTES - 2, CHUNK_BYTES + 2],
    [CHUNK_BYTES, 2 * CHUNK_BYTES - 1],
    [CHUNK_BYTES + 10, 3 * CHUNK_BYTES + 4],
    [3 * CHUNK_BYTES, 3 * CHUNK_BYTES + 4],
    [100, 2 * CHUNK_BYTES],
  ])('decrypts the byte range %i-%i from only the chunks that hold it', async (start, end) => {
    const size = 3 * CHUNK_BYTES + 5;
    const plaintext = randomBytes(size);
    const sealed = await seal(key, plaintext);
    expect((await open(key, sealed, size, start, end)).equals(plaintext.subarray(start, end + 1))).toBe(true);
  });

  describe('detects every alteration of the stored bytes', () => {
    const size = 3 * CHUNK_BYTES + 5;
    let plaintext: Buffer;
    let sealed: Buffer;
    const SEALED_CHUNK = CHUNK_BYTES + 16;

    beforeAll(async () => {
      plaintext = randomBytes(size);
      sealed = await seal(key, plaintext);
    });

    const alterations: [string, (stored: Buffer) => Buffer][] = [
      ['a flipped bit in the first chunk', (s) => Buffer.concat([s.subarray(0, 10), Buffer.of(s[10] ^ 1), s.subarray(11)])],
      ['a flipped bit in a tag', (s) => Buffer.concat([s.subarray(0, SEALED_CHUNK - 1), Buffer.of(s[SEALED_CHUNK - 1] ^ 0x80), s.subarray(SEALED_CHUNK)])],
      ['the last byte cut off', (s) => s.subarray(0, s.length - 1)],
      ['the final chunk cut off', (s) => s.subarray(0, 3 * SEALED_CHUNK)],
      ['a byte appended', (s) => Buffer.concat([s, Buffer.of(0)])],
      ['a whole chunk appended', (s) => Buffer.concat([s, s.subarray(0, SEALED_CHUNK)])],
      ['two chunks swapped', (s) => Buffer.concat([s.subarray(SEALED_CHUNK, 2 * SEALED_CHUNK), s.subarray(0, SEALED_CHUNK), s.subarray(2 * SEALED_CHUNK)])],
      ['a chunk dropped from the middle', (s) => Buffer.concat([s.subarray(0, SEALED_CHUNK), s.subarray(2 * SEALED_CHUNK)])],
    ];

    it.each(alterations)('%s', async (_what, alter) => {
      const altered = alter(sealed);
      const transform = decryptStream(key, size, chunkRange(size));
      await expect(through(transform, altered)).rejects.toBeInstanceOf(StreamIntegrityError);
    });

    it('the first chunk of a longer stream passed off as a whole stream', async () => {
      const exact = randomBytes(2 * CHUNK_BYTES);
      const stored = await seal(key, exact);
      const cut = stored.subarray(0, SEALED_CHUNK);
      await expect(through(decryptStream(key, CHUNK_BYTES, chunkRange(CHUNK_BYTES)), cut)).rejects.toBeInstanceOf(StreamIntegrityError);
    });

    it('another stream key', async () => {
      await expect(open(StreamKey.generate(), sealed, size)).rejects.toBeInstanceOf(StreamIntegrityError);
    });

    it('gives out no plaintext of a chunk that fails', async () => {
      const altered = Buffer.from(sealed);
      altered[SEALED_CHUNK + 5] ^= 1;
      const given: Buffer[] = [];
      const transform = decryptStream(key, size, chunkRange(size));
      transform.on('data', (part: Buffer) => given.push(part));
      await expect(through(transform, altered)).rejects.toBeInstanceOf(StreamIntegrityError);
      expect(Buffer.concat(given).equals(plaintext.subarray(0, CHUNK_BYTES))).toBe(true);
    });
  });

  it('keeps its key and nonce prefix through toBytes/fromBytes', async () => {
    const plaintext = randomBytes(5000);
    const sealed = await seal(key, plaintext);
    const restored = StreamKey.fromBytes(key.toBytes());
    expect((await open(restored, sealed, plaintext.length)).equals(plaintext)).toBe(true);
  });
});
