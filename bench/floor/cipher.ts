import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The floor's AES-256-GCM, in the service's layout (version | key id | nonce | tag | ciphertext,
 * with the field context as additional data), so both do the same cryptographic work per request.
 */
export class FloorCipher {
  private readonly keyId: Buffer;

  constructor(private readonly key: Buffer) {
    this.keyId = createHash('sha256').update('pwpush-key-id:').update(key).digest().subarray(0, 4);
  }

  encrypt(plaintext: string, context: string): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(1), this.keyId, nonce, cipher.getAuthTag(), body]);
  }

  decrypt(sealed: Buffer, context: string): string {
    if (sealed[0] !== 1 || !sealed.subarray(1, 5).equals(this.keyId)) throw new Error('foreign ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(5, 17));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(sealed.subarray(17, 33));
    return Buffer.concat([decipher.update(sealed.subarray(33)), decipher.final()]).toString('utf8');
  }
}
