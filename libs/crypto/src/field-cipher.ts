import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 1;
const KEY_ID_BYTES = 4;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES + NONCE_BYTES + TAG_BYTES;

interface Key {
  id: Buffer;
  secret: Buffer;
}

/** A short fingerprint of a key, stored beside each ciphertext so the right key is found after rotation. */
function keyIdOf(secret: Buffer): Buffer {
  return createHash('sha256').update('pwpush-key-id:').update(secret).digest().subarray(0, KEY_ID_BYTES);
}

/**
 * AES-256-GCM encryption of individual fields.
 *
 * Layout: version (1) | key id (4) | nonce (12) | tag (16) | ciphertext.
 * New values use the current key; values written under a previous key still decrypt.
 * The context (e.g. "payload:<url_token>") is authenticated, so a ciphertext copied to
 * another field or another push does not decrypt.
 */
export class FieldCipher {
  private readonly current: Key;
  private readonly byId = new Map<string, Key>();

  constructor(currentHex: string, previousHex: readonly string[] = []) {
    const keys = [currentHex, ...previousHex].map((hex) => {
      const secret = Buffer.from(hex, 'hex');
      if (secret.length !== 32) throw new Error('An encryption key must be 32 bytes (64 hex characters).');
      return { id: keyIdOf(secret), secret };
    });
    this.current = keys[0];
    for (const key of keys) this.byId.set(key.id.toString('hex'), key);
  }

  encrypt(plaintext: string, context: string): Buffer {
    return this.seal(Buffer.from(plaintext, 'utf8'), context);
  }

  decrypt(sealed: Buffer, context: string): string {
    return this.open(sealed, context).toString('utf8');
  }

  /** Bytes rather than text: the same layout and rules as encrypt. */
  seal(plaintext: Buffer, context: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.secret, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT_VERSION), this.current.id, nonce, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer, context: string): Buffer {
    if (sealed.length < HEADER_BYTES || sealed[0] !== FORMAT_VERSION) {
      throw new Error('Unrecognised ciphertext format.');
    }
    const keyId = sealed.subarray(1, 1 + KEY_ID_BYTES).toString('hex');
    const key = this.byId.get(keyId);
    if (!key) throw new Error(`No key with id ${keyId} is configured (PWPUSH_MASTER_KEY_PREVIOUS).`);
    const nonceEnd = 1 + KEY_ID_BYTES + NONCE_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', key.secret, sealed.subarray(1 + KEY_ID_BYTES, nonceEnd));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(sealed.subarray(nonceEnd, HEADER_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]);
  }

  /**
   * A key for another purpose (e.g. signing download links), derived from the current master key
   * with HKDF, so one secret serves and rotating it rotates them all.
   */
  deriveKey(purpose: string): Buffer {
    return derive(this.current.secret, purpose);
  }

  /**
   * The key for `purpose` derived from each key of the ring, the current one first: a keyed hash
   * written before a rotation is still recognised under the key it was written with.
   */
  deriveKeys(purpose: string): Buffer[] {
    return [this.current, ...[...this.byId.values()].filter((key) => key !== this.current)].map((key) => derive(key.secret, purpose));
  }
}

function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `pwpush:${purpose}`, 32));
}
