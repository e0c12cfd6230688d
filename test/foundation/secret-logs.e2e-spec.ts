import request from 'supertest';
import { signatureHeader } from '../../src/orders/fulfillment-signature';
import { eventually, startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { startSmtpSink, SmtpSink } from '../support/smtp';
import { createTenant, Tenant } from '../support/tenant';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { altered } from '../support/altered';

/**
 * Every flow that hands out or takes a secret, run with LOG_LEVEL=debug through real mail and
 * webhook deliveries: none of the secrets may appear anywhere in what was logged (docs/security.md).
 */
describe('no secret reaches the logs', () => {
  let smtp: SmtpSink;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let tenant: Tenant;
  const raw: string[] = [];
  /** Every secret value the flows saw. */
  const secrets = new Map<string, string>();
  const site = (rest: string) => `/api/v2/sites/${tenant.siteName}${rest}`;
  const anonymous = () => request(t.server);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    receiver = await startWebhookReceiver();
    t = await startApp({
      databaseUrl: await createFreshDatabase('secretlogs'),
      env: {
        LOG_LEVEL: 'debug',
        SMTP_URL: smtp.url,
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOKS_ALLOW_HTTP: 'true',
        SLOW_REQUEST_MS: '1',
      },
      logDestination: { write: (line: string) => void raw.push(line) },
    });
    tenant = await createTenant(t);
    secrets.set('bootstrap tenant key', tenant.key);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([smtp.close(), receiver.close()]);
  });

  /** The text and HTML of the newest mail to `to`, once there are `n`. */
  const mailText = async (to: string, n: number): Promise<string> => {
    const mine = await eventually(async () => {
      const got = smtp.received.filter((m) => m.to.includes(to));
      return got.length >= n ? got : undefined;
    });
    const last = mine[mine.length - 1];
    return `${last.parsed.text ?? ''}\n${typeof last.parsed.html === 'string' ? last.parsed.html : ''}`;
  };

  it('API keys: creating one (answered once) and using it', async () => {
    const created = await tenant.api.post('/api/v2/api-keys').send({ name: 'ci' }).expect(201);
    const key = created.body.key as string;
    expect(key).toMatch(/^sb_live_/);
    secrets.set('new API key', key);
    await request(t.server).get('/api/v2/api-keys').set('x-api-key', key).expect(200);
    await request(t.server).get('/api/v2/api-keys').set('Authorization', `Bearer ${key}`).expect(200);
    // A wrong key is refused, and is a secret-shaped value too.
    const forged = altered(key, 2);
    secrets.set('forged key', forged);
    await request(t.server).get('/api/v2/api-keys').set('x-api-key', forged).expect(401);
  });

  it('site users: the OTP code and the session token', async () => {
    const email = 'otp@example.com';
    await anonymous().post(site('/users/request-otp')).send({ email }).expect(202);
    const code = /\b(\d{6})\b/.exec(await mailText(email, 1))?.[1];
    expect(code).toMatch(/^\d{6}$/);
    secrets.set('OTP code', code!);
    const wrong = code === '000000' ? '111111' : '000000';
    const refused = await anonymous().post(site('/users/verify-otp')).send({ email, code: wrong });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const res = await anonymous().post(site('/users/verify-otp')).send({ email, code }).expect(200);
    const token = res.body.accessToken as string;
    secrets.set('session token', token);
    await anonymous().get(site('/users/me')).set('Authorization', `Bearer ${token}`).expect(200);
    await anonymous().post(site('/users/me/sign-out')).set('Authorization', `Bearer ${token}`).expect(204);
    await anonymous().get(site('/users/me')).set('Authorization', `Bearer ${token}`).expect(401);
  });

  it('webhooks: the endpoint secret, its rotation, and signed deliveries', async () => {
    const created = await tenant.api
      .post(site('/webhooks'))
      .send({ url: receiver.url, eventTypes: ['content.created'] })
      .expect(201);
    secrets.set('webhook secret', created.body.secret as string);
    const rotated = await tenant.api.post(site(`/webhooks/${created.body.id}/rotate-secret`)).expect(200);
    secrets.set('rotated webhook secret', rotated.body.secret as string);
    await tenant.api.post(site('/content')).send({ title: 'Hello', type: 'post' }).expect(201);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.headers['webhook-signature']).toEqual(expect.any(String));
    secrets.set('webhook signature', String(delivery.headers['webhook-signature']).split(' ')[0].split(',')[1]);
  });

  it('orders: the fulfillment secret and a signed notification', async () => {
    const res = await tenant.api.post(site('/orders/fulfillment-secret')).expect(200);
    const secret = res.body.secret as string;
    secrets.set('fulfillment secret', secret);
    const body = JSON.stringify({ id: 'ntf_1', orderId: 999999, shipment: { carrier: 'DHL', lines: [] } });
    const header = signatureHeader(secret, Math.floor(Date.now() / 1000), body);
    secrets.set('fulfillment signature', /v1=([^,\s]+)/.exec(header)?.[1] ?? header);
    const answer = await anonymous()
      .post(site('/orders/fulfillment-notifications'))
      .set('content-type', 'application/json')
      .set('x-sitebase-signature', header)
      .send(body);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('newsletter: the confirmation and preferences tokens, in paths and in queries', async () => {
    const list = await tenant.api.post(site('/newsletter/lists')).send({ name: 'Digest' }).expect(201);
    const email = 'reader@example.com';
    await anonymous()
      .post(site('/newsletter/subscribe'))
      .send({ email, lists: [list.body.id] })
      .expect(202);
    // The links as mailed: the confirmation mail's, then the welcome mail's preferences link once
    // confirmed (the stored copies show them redacted).
    const link = async (kind: string, mails: number) => {
      const found = new RegExp(`newsletter/${kind}/([\\w.-]+)`).exec(await mailText(email, mails))?.[1];
      expect(found).toEqual(expect.any(String));
      return found!;
    };
    const confirm = await link('confirm', 1);
    secrets.set('confirmation token', confirm);
    await anonymous()
      .get(site(`/newsletter/confirm/${confirm}`))
      .set('accept', 'application/json')
      .expect(200);
    const manage = await link('preferences', 2);
    secrets.set('preferences token', manage);
    await anonymous()
      .get(site(`/newsletter/preferences/${manage}`))
      .set('accept', 'application/json')
      .expect(200);
    await anonymous()
      .post(site(`/newsletter/unsubscribe?token=${encodeURIComponent(manage)}`))
      .type('form')
      .send({ 'List-Unsubscribe': 'One-Click' })
      .expect(200);
  });

  it('wrote debug lines, and none of them holds any of the secrets', async () => {
    // Let the relay, the webhook drain and the mail jobs log what they log.
    await eventually(async () => (raw.some((l) => l.includes('"level":20')) ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    const text = raw.join('');
    expect(raw.length).toBeGreaterThan(20);
    const urls = raw.filter((l) => l.includes('"msg":"request completed"')).map((l) => String(JSON.parse(l).url));
    expect(urls.filter((u) => /\/newsletter\/(confirm|preferences)\/|token=/.test(u))).toEqual([
      expect.stringMatching(/\/newsletter\/confirm\/\[redacted\]$/),
      expect.stringMatching(/\/newsletter\/preferences\/\[redacted\]$/),
      expect.stringMatching(/\/newsletter\/unsubscribe\?token=\[redacted\]$/),
    ]);
    expect(secrets.size).toBe(12);
    for (const [what, value] of secrets) {
      expect(value.length).toBeGreaterThanOrEqual(6);
      expect(text.includes(value) ? `${what} is in the log` : what).toBe(what);
      expect(text.includes(encodeURIComponent(value)) ? `${what} (URL-encoded) is in the log` : what).toBe(what);
    }
  });
});
