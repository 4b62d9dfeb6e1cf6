import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';
import { securityHeaders } from './http-policies';

function response(): ServerResponse {
  const request = new IncomingMessage(new Socket());
  request.method = 'GET';
  request.url = '/api/v2/pushes/abc?passphrase=x';
  return new ServerResponse(request);
}

describe('securityHeaders', () => {
  it.each([
    ['the default policy', () => helmet()],
    ['the docs policy', () => helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } })],
  ])('sets exactly what helmet itself sets on a response (%s)', (_, configure) => {
    const byHelmet = response();
    configure()(byHelmet.req, byHelmet, () => undefined);
    const sut = response();
    for (const [name, value] of securityHeaders(configure())) sut.setHeader(name, value);
    expect(sut.getHeaders()).toEqual(byHelmet.getHeaders());
    expect(Object.keys(sut.getHeaders())).toEqual(
      expect.arrayContaining(['content-security-policy', 'strict-transport-security', 'x-frame-options']),
    );
  });

  it('refuses a middleware that does not answer at once', () => {
    const later = (_req: unknown, _res: unknown, next: () => void) => void setImmediate(next);
    expect(() => securityHeaders(later)).toThrow('helmet did not set its headers at once');
  });
});
