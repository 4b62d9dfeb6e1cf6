import { Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';

/** OWASP's Argon2id baseline (19 MiB, 2 passes): slow for an attacker, bounded memory per request. */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

@Injectable()
export class PassphraseHasher {
  hash(passphrase: string): Promise<string> {
    return argon2.hash(passphrase, OPTIONS);
  }

  /** Compares through the hash only; a malformed stored hash counts as a mismatch. */
  async verify(hash: string, passphrase: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, passphrase);
    } catch {
      return false;
    }
  }
}
