import type { NextFunction, Request, Response } from 'express';
import { randomBytes } from 'node:crypto';

/**
 * Headers of every page: a CSP that allows only this app's stylesheet, images it renders (the QR
 * code, as a data: URL) and the one script carrying this response's nonce, and no framing; no
 * caching anywhere (pages show secrets and tokens). X-Robots-Tag and Referrer-Policy:
 * no-referrer (the URL holds the token) come from the app-wide policies.
 *
 * No form-action directive: the reveal of a URL push answers its form with a redirect to that
 * URL, which form-action would block.
 */
export function pagePolicies(_request: Request, response: Response, next: NextFunction): void {
  const nonce = randomBytes(16).toString('hex');
  response.locals.nonce = nonce;
  response.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`,
  );
  response.setHeader('Cache-Control', 'no-store');
  next();
}
