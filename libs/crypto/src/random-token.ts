import { randomBytes } from 'node:crypto';

/** A URL-safe random token; 18 bytes give 144 bits in 24 characters. */
export function randomToken(bytes = 18): string {
  return randomBytes(bytes).toString('base64url');
}
