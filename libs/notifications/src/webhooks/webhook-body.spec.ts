import { webhookBody } from './webhook-body';

describe('webhookBody', () => {
  const stored = JSON.stringify({
    id: 'msg_1',
    type: 'push.viewed',
    timestamp: '2026-01-01T00:00:00.000Z',
    data: { url_token: 'AbCdEfGh-the-rest-opens-it', kind: 'text', name: null, views_remaining: 1, days_remaining: 7, expired: false },
  });

  it('carries the first 8 characters of the url_token and never the rest, unless the endpoint opted in', () => {
    const body = webhookBody(stored, false);
    expect(JSON.parse(body)).toEqual({
      id: 'msg_1',
      type: 'push.viewed',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { url_token_prefix: 'AbCdEfGh', kind: 'text', name: null, views_remaining: 1, days_remaining: 7, expired: false },
    });
    expect(body).not.toContain('the-rest-opens-it');
  });

  it('adds the full url_token for an endpoint registered with include_url_token', () => {
    expect(JSON.parse(webhookBody(stored, true)).data).toMatchObject({ url_token_prefix: 'AbCdEfGh', url_token: 'AbCdEfGh-the-rest-opens-it' });
  });
});
