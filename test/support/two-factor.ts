import { Secret, TOTP } from 'otpauth';
import type { Visitor } from './visitor';

/** What an authenticator app shows for `secret` (as the page prints it, in groups) at `at`: the same library as the server's. */
export function totpCode(secret: string, at = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret.replace(/\s/g, '')) }).generate({ timestamp: at });
}

/** The recovery codes a page lists, in its order. */
export const listedCodes = (html: string): string[] =>
  [...html.matchAll(/<li><code>([0-9a-f]{10})<\/code><\/li>/g)].map((match) => match[1]);

/** The key the setup page prints for typing. */
export const printedSecret = (html: string): string => /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(html)![1];

/**
 * Turns two-factor on for the signed-in visitor through the setup pages, as a person with an
 * authenticator app does; the codes are computed at `now` (the server's clock).
 */
export async function turnOnTwoFactor(visitor: Visitor, now: () => number = Date.now): Promise<{ secret: string; codes: string[] }> {
  const codesPage = await visitor.get('/user/two_factor/backup_codes');
  if (codesPage.status !== 200) throw new Error(`backup codes: ${codesPage.status}`);
  const codes = listedCodes(codesPage.html);
  const verify = await visitor.get('/user/two_factor/verify');
  const secret = printedSecret(verify.html);
  const enabled = await visitor.submit('/user/two_factor/verify', '/user/two_factor', { code: totpCode(secret, now()) });
  if (enabled.status !== 200 || !enabled.html.includes('Two-factor authentication is on.')) throw new Error(`enable: ${enabled.status}`);
  return { secret, codes };
}
