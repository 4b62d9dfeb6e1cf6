/**
 * Lower-cases A-Z and nothing else. String.prototype.toLowerCase folds Unicode too, and some of it
 * into ASCII: the Kelvin sign (U+212A) becomes `k`, so `\u212Aate@example.com` would be taken for
 * `kate@example.com`. Email addresses, whose local parts beyond ASCII are case-sensitive, are
 * compared through this.
 */
export function asciiLowerCase(value: string): string {
  return value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}
