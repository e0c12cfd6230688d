import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeader, webhookHeaders } from './webhook-signature';

/** The example of the Standard Webhooks specification (and of the `standardwebhooks` package's tests). */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: new Date(1614265330 * 1000),
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signatures', () => {
  it('signs the published example as the specification does', () => {
    expect(signatureHeader([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('is an HMAC-SHA256 of "id.timestamp.body" with the base64 key after whsec_', () => {
    const secret = newWebhookSecret();
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const at = new Date('2026-01-01T00:00:00Z');
    const mac = createHmac('sha256', key)
      .update(`msg_1.${at.getTime() / 1000}.{"a":1}`)
      .digest('base64');
    expect(signatureHeader([secret], 'msg_1', at, '{"a":1}')).toBe(`v1,${mac}`);
  });

  it('makes secrets of 24 random bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it('signs with every secret given, space-separated: a receiver with either verifies', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const now = new Date();
    const headers = webhookHeaders([current, previous], 'msg_7', now, '{"type":"x"}');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify('{"type":"x"}', headers)).toEqual({ type: 'x' });
    expect(() => new Webhook(newWebhookSecret()).verify('{"type":"x"}', headers)).toThrow();
  });
});
