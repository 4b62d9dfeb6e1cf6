import { redactUrl } from './logging.module';

describe('redactUrl', () => {
  const TOKEN = 'Zx9_Kq-4mN2pL7rT1vW3yB5d';

  it.each([
    ['a retrieval', `/api/v2/pushes/${TOKEN}`, '/api/v2/pushes/:url_token'],
    ['a retrieval with a passphrase in the query', `/api/v2/pushes/${TOKEN}?passphrase=hunter2`, '/api/v2/pushes/:url_token'],
    ['a preview', `/api/v2/pushes/${TOKEN}/preview`, '/api/v2/pushes/:url_token/preview'],
    ['an audit page', `/api/v2/pushes/${TOKEN}/audit?page=2`, '/api/v2/pushes/:url_token/audit'],
    ['a file download', `/api/v2/pushes/${TOKEN}/files/AQAAAAAAAQAAaSNBLnwRZ2kPRhNOhEUB9gFqHUAbkQ`, '/api/v2/pushes/:url_token/files/:link'],
    ['a secret URL', `/p/${TOKEN}`, '/p/:url_token'],
    ['a secret URL with the retrieval step', `/p/${TOKEN}/r`, '/p/:url_token/r'],
    ['a percent-encoded token', '/api/v2/pushes/abc%2Fdef%00?x=1', '/api/v2/pushes/:url_token'],
    ['a retrieval through .json', `/api/v2/pushes/${TOKEN}.json`, '/api/v2/pushes/:url_token.json'],
    ['an API v1 retrieval', `/p/${TOKEN}.json?passphrase=x`, '/p/:url_token.json'],
    ['an API v1 file push retrieval', `/f/${TOKEN}.json`, '/f/:url_token.json'],
    ['an API v1 URL push preview', `/r/${TOKEN}/preview.json`, '/r/:url_token/preview.json'],
    ['a legacy file link', `/f/${TOKEN}`, '/f/:url_token'],
    ['a legacy link with the step', `/r/${TOKEN}/r`, '/r/:url_token/r'],
    ['a secret request', `/api/v2/requests/${TOKEN}`, '/api/v2/requests/:url_token'],
    ['an answer to a request', `/api/v2/requests/${TOKEN}/respond.json?passphrase=x`, '/api/v2/requests/:url_token/respond.json'],
    ['a request\'s file', `/api/v2/requests/${TOKEN}/files/AQAAAAAAAQAAaSNBLnwRZ2kPRhNOhEUB9gFqHUAbkQ`, '/api/v2/requests/:url_token/files/:link'],
    ['a request\'s page', `/requests/${TOKEN}`, '/requests/:url_token'],
  ])('masks the token in %s', (_name, url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it.each([
    ['the active list', '/api/v2/pushes/active?page=3', '/api/v2/pushes/active'],
    ['the expired list', '/api/v2/pushes/expired', '/api/v2/pushes/expired'],
    ['the lists of requests', '/api/v2/requests/open.json?page=2', '/api/v2/requests/open.json'],
    ['the closed requests', '/api/v2/requests/closed', '/api/v2/requests/closed'],
    ['an API v1 list', '/p/active.json?page=2', '/p/active.json'],
    ['an API v1 create', '/p.json', '/p.json'],
    ['creation', '/api/v2/pushes', '/api/v2/pushes'],
    ['the version', '/api/v2/version?access_token=secret', '/api/v2/version'],
    ['the root', '/', '/'],
    ['a confirmation link', '/users/confirmation?confirmation_token=Zx9_Kq-4mN2pL7rT1vW3yB5dQ', '/users/confirmation'],
    ['a reset link', '/users/password/edit?reset_password_token=Zx9_Kq-4mN2pL7rT1vW3yB5dQ', '/users/password/edit'],
    ['an unlock link', '/users/unlock?unlock_token=Zx9_Kq-4mN2pL7rT1vW3yB5dQ', '/users/unlock'],
  ])('keeps %s, dropping only the query', (_name, url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('drops every query string, whatever it holds', () => {
    for (const url of ['/api/v2/version?passphrase=a&passphrase=b', '/users/token?api_token=x#frag', '/?']) {
      expect(redactUrl(url)).not.toContain('?');
    }
    expect(redactUrl('/api/v2/pushes/active?passphrase=hunter2')).not.toContain('hunter2');
  });

  it('answers an empty string for a missing URL', () => {
    expect(redactUrl(undefined)).toBe('');
    expect(redactUrl('')).toBe('');
  });

  it('never lets the token through', () => {
    for (const url of [`/api/v2/pushes/${TOKEN}`, `/api/v2/pushes/${TOKEN}/preview?passphrase=x`, `/p/${TOKEN}/r`]) {
      expect(redactUrl(url)).not.toContain(TOKEN);
    }
  });

  it('masks tokens whatever the case of the path, which routing ignores', () => {
    expect(redactUrl(`/API/V2/PUSHES/${TOKEN}`)).toBe('/API/V2/PUSHES/:url_token');
    expect(redactUrl(`/Api/v2/Pushes/${TOKEN}/Preview`)).not.toContain(TOKEN);
  });

  it('keeps only the exact list names, not tokens that start like them', () => {
    expect(redactUrl('/api/v2/pushes/active')).toBe('/api/v2/pushes/active');
    expect(redactUrl('/api/v2/pushes/EXPIRED?page=2')).toBe('/api/v2/pushes/EXPIRED');
    expect(redactUrl('/api/v2/pushes/active-Zx9_secret')).toBe('/api/v2/pushes/:url_token');
    expect(redactUrl('/api/v2/pushes/expired.Zx9/audit')).toBe('/api/v2/pushes/:url_token/audit');
  });
});
