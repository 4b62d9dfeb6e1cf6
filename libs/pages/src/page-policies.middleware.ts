import type { NextFunction, Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { BrandSettings } from '@app/config';

/**
 * Headers of every page: a CSP that allows only this app's stylesheet, images it renders (the QR
 * code, as a data: URL or inline SVG) or the operator's logo names (its origin, when the logo is
 * elsewhere), and the one script carrying this response's nonce (which may post an upload to this host, for its progress), and no framing; no caching
 * anywhere (pages show secrets and tokens). X-Robots-Tag and Referrer-Policy: no-referrer (the URL
 * holds the token) come from the app-wide policies.
 *
 * No form-action directive: the reveal of a URL push answers its form with a redirect to that
 * URL, which form-action would block.
 */
export function pagePolicies(brand: BrandSettings): (request: Request, response: Response, next: NextFunction) => void {
  const imageSources = ["'self'", 'data:', ...logoOrigins(brand)].join(' ');
  return (_request, response, next) => {
    const nonce = randomBytes(16).toString('hex');
    response.locals.nonce = nonce;
    response.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; style-src 'self'; img-src ${imageSources}; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
    response.setHeader('Cache-Control', 'no-store');
    next();
  };
}

/** The origins of logos given as absolute URLs (a logo given as a path is 'self'). */
function logoOrigins(brand: BrandSettings): string[] {
  const urls = [brand.lightLogo, brand.darkLogo].filter((logo): logo is string => logo !== undefined && !logo.startsWith('/'));
  return [...new Set(urls.map((url) => new URL(url).origin))];
}
