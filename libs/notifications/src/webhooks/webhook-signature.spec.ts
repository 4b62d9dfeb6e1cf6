import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newWebhookSecret, signWebhook } from './webhook-signature';

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes, new each time', () => {
    const secrets = [newWebhookSecret(), newWebhookSecret()];
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(secrets[0]).not.toBe(secrets[1]);
  });
});

describe('signWebhook', () => {
  const body = JSON.stringify({ type: 'push.viewed', timestamp: '2026-01-02T03:04:05Z', data: { url_token: 'abc' } });

  it("signs as the specification's example says: v1, then base64 HMAC-SHA256 of id.timestamp.body", () => {
    // The example secret, message and signature of the Standard Webhooks specification and its libraries' tests.
    const sut = signWebhook({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: new Date(1614265330_000),
      body: '{"test": 2432232314}',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(sut).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('gives headers that a Standard Webhooks verifier accepts, and that the secret key computes independently', () => {
    const secret = newWebhookSecret();
    const sut = signWebhook({ id: 'msg_1', timestamp: new Date(), body, secret });
    expect(new Webhook(secret).verify(body, { ...sut })).toEqual(JSON.parse(body));
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`msg_1.${sut['webhook-timestamp']}.${body}`).digest('base64');
    expect(sut['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('gives timestamps in whole seconds', () => {
    expect(
      signWebhook({ id: 'msg_1', timestamp: new Date(1_700_000_000_999), body, secret: newWebhookSecret() })['webhook-timestamp'],
    ).toBe('1700000000');
  });

  it('is refused by a verifier holding another secret, or for a changed body, id or timestamp', () => {
    const secret = newWebhookSecret();
    const sut = signWebhook({ id: 'msg_1', timestamp: new Date(), body, secret });
    const verify =
      (headers: Record<string, string>, payload = body, key = secret) =>
      () =>
        new Webhook(key).verify(payload, headers);
    expect(verify(sut, body, newWebhookSecret())).toThrow(WebhookVerificationError);
    expect(verify(sut, body.replace('abc', 'abd'))).toThrow(WebhookVerificationError);
    expect(verify({ ...sut, 'webhook-id': 'msg_2' })).toThrow(WebhookVerificationError);
    expect(verify({ ...sut, 'webhook-timestamp': String(Number(sut['webhook-timestamp']) - 1) })).toThrow(WebhookVerificationError);
  });
});
