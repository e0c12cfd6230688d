import { generateKeyPairSync, KeyObject, randomBytes } from 'node:crypto';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { SentCopy as Sent } from '../support/bounces';
import { createFreshDatabase } from '../support/databases';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import {
  mailgunBody as signMailgun,
  relaySecrets,
  sendgridHeaders as signSendgrid,
} from '../support/provider-webhooks';
import { bounceState, mailApp } from '../support/bounce-state';
import { SmtpSink } from '../support/smtp';
import { Tenant } from '../support/tenant';

const PROVIDERS = '/api/v2/email/providers';
const RELAYS = relaySecrets();
const MAILGUN_KEY = RELAYS.mailgunKey;
const POSTMARK_TOKEN = RELAYS.postmarkToken;
const SENDGRID = RELAYS.sendgrid;

const sendgridHeaders = (raw: string, opts: { key?: KeyObject; at?: number } = {}) =>
  signSendgrid(raw, opts.key ?? SENDGRID.privateKey, opts.at);
const mailgunBody = (eventData: Record<string, unknown>, opts: { key?: string; at?: number; token?: string } = {}) =>
  signMailgun(eventData, opts.key ?? MAILGUN_KEY, opts);

const mailgunFailed = (sent: Sent, severity = 'permanent') => ({
  event: 'failed',
  severity,
  recipient: sent.to,
  reason: 'bounce',
  'delivery-status': { code: 550, message: '5.1.1 The email account that you tried to reach does not exist' },
  message: { headers: { 'message-id': sent.messageId, to: sent.to, subject: 'x' } },
});

const postmarkBounce = (sent: Sent, type = 'HardBounce') => ({
  RecordType: 'Bounce',
  ID: 42,
  Type: type,
  TypeCode: 1,
  MessageID: sent.messageId,
  Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist',
  Email: sent.to,
  BouncedAt: new Date().toISOString(),
});

/**
 * Bounces and complaints from the relay's webhooks (docs/deliverability.md, "From a provider"):
 * payloads signed by the test with the provider's scheme, for copies the app really sent through
 * an SMTP sink, matched by their Message-ID and recipient.
 */
describe('bounce and complaint webhooks of providers', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;

  const app = mailApp('bounceproviders', RELAYS.env);
  beforeAll(() => ({ t, a, smtp } = app));

  const state = bounceState(() => ({ t, a }));
  const { subscribed, subscriptionOf, bouncesOf, suppression } = state;
  const mailTo = (to: string) => state.mailTo(smtp, to);

  const mailgun = (body: unknown) =>
    request(t.server)
      .post(`${PROVIDERS}/mailgun/events`)
      .send(body as object);
  const postmark = (body: unknown, token: string | null = POSTMARK_TOKEN) => {
    const req = request(t.server).post(`${PROVIDERS}/postmark/events`);
    if (token !== null) void req.set('x-sitebase-webhook-token', token);
    return req.send(body as object);
  };

  const sendgrid = (raw: string, headers: Record<string, string> = sendgridHeaders(raw)) =>
    request(t.server).post(`${PROVIDERS}/sendgrid/events`).set(headers).type('json').send(raw);
  const sendgridBounce = (sent: Sent, type = 'bounce') => ({
    email: sent.to,
    timestamp: Math.floor(Date.now() / 1000),
    'smtp-id': `<${sent.messageId}>`,
    event: 'bounce',
    type,
    status: '5.1.1',
    reason: '550 5.1.1 The email account that you tried to reach does not exist',
    sg_event_id: randomBytes(8).toString('hex'),
  });

  it('Mailgun: a signed permanent failure suppresses the address, marks the subscription, records the event; a replay counts once', async () => {
    await subscribed('mg-hard@example.org', 'Mailgun list');
    const sent = await mailTo('mg-hard@example.org');
    const since = await lastEventId(t);
    const body = mailgunBody(mailgunFailed(sent));
    const res = await mailgun(body).expect(200);
    expect(res.body).toEqual({ outcome: 'recorded' });
    expect(await bouncesOf(sent.id)).toEqual([
      { kind: 'hard', source: 'mailgun', status: '5.1.1', recipient: 'mg-hard@example.org' },
    ]);
    expect(await suppression('mg-hard@example.org')).toEqual({ reason: 'bounced', messageId: sent.id });
    const sub = await subscriptionOf('mg-hard@example.org');
    expect(sub.deliverability).toBe('bounced');
    expect(await eventsOf(t, a, since)).toEqual([
      {
        name: 'newsletter.subscription.bounced',
        payload: { id: sub.id, messageId: sent.id, campaignId: null, source: 'mailgun', kind: 'hard' },
      },
    ]);

    // The same signed call again (a retry, or a replay): nothing changes.
    const before = await snapshotDatabase(t.db);
    expect((await mailgun(body).expect(200)).body).toEqual({ outcome: 'duplicate' });
    // Signed anew (Mailgun's own retry of the event): recorded once per message and kind.
    expect((await mailgun(mailgunBody(mailgunFailed(sent))).expect(200)).body).toEqual({ outcome: 'duplicate' });
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('Mailgun: a complaint suppresses the address as complained; a temporary failure is a soft bounce', async () => {
    const angry = await mailTo('mg-angry@example.org');
    const complaint = {
      event: 'complained',
      recipient: angry.to,
      message: { headers: { 'message-id': angry.messageId } },
    };
    expect((await mailgun(mailgunBody(complaint)).expect(200)).body).toEqual({ outcome: 'recorded' });
    expect(await suppression('mg-angry@example.org')).toEqual({ reason: 'complained', messageId: angry.id });

    const soft = await mailTo('mg-soft@example.org');
    // The id as an MTA quotes it, in angle brackets: the same message.
    const event = {
      ...mailgunFailed(soft, 'temporary'),
      message: { headers: { 'message-id': `<${soft.messageId}>` } },
    };
    expect((await mailgun(mailgunBody(event)).expect(200)).body).toEqual({ outcome: 'recorded' });
    expect(await bouncesOf(soft.id)).toEqual([
      { kind: 'soft', source: 'mailgun', status: '5.1.1', recipient: 'mg-soft@example.org' },
    ]);
    expect(await suppression('mg-soft@example.org')).toBeUndefined();
  });

  it('Mailgun: unsigned, badly signed, another key, stale or from the future: 401 and nothing changed', async () => {
    const sent = await mailTo('mg-forged@example.org');
    const event = mailgunFailed(sent);
    const now = Math.floor(Date.now() / 1000);
    const good = mailgunBody(event);
    const flipped = good.signature.signature.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const before = await snapshotDatabase(t.db);
    for (const body of [
      { 'event-data': event },
      { ...good, signature: { ...good.signature, signature: flipped } },
      { ...good, signature: { ...good.signature, token: `${good.signature.token}x` } },
      mailgunBody(event, { key: 'key-someone-else' }),
      mailgunBody(event, { at: now - 301 }),
      mailgunBody(event, { at: now + 400 }),
      { ...good, signature: { ...good.signature, timestamp: Number(good.signature.timestamp) } },
    ]) {
      expectProblem(await mailgun(body), 401, 'invalid_signature');
    }
    expectProblem(await request(t.server).post(`${PROVIDERS}/mailgun/events`), 401, 'invalid_signature');
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('Mailgun: a guessed Message-ID with another recipient suppresses nobody; a signed event without a recipient is a 400', async () => {
    const sent = await mailTo('mg-victim@example.org');
    const before = await snapshotDatabase(t.db);
    const guessed = { ...mailgunFailed(sent), recipient: 'attacker@example.org' };
    expect((await mailgun(mailgunBody(guessed)).expect(200)).body).toEqual({ outcome: 'unmatched' });
    const other = { ...mailgunFailed(sent), message: { headers: { 'message-id': 'nothing-of-ours@example.org' } } };
    expect((await mailgun(mailgunBody(other)).expect(200)).body).toEqual({ outcome: 'unmatched' });
    expect((await mailgun(mailgunBody({ event: 'delivered', recipient: sent.to })).expect(200)).body).toEqual({
      outcome: 'ignored',
    });
    // Mailgun's own suppression list dropped it (nothing was sent): no report of ours.
    for (const reason of ['suppress-bounce', 'suppress-complaint'])
      expect((await mailgun(mailgunBody({ ...mailgunFailed(sent), reason })).expect(200)).body).toEqual({
        outcome: 'ignored',
      });
    const { recipient: _, ...noRecipient } = mailgunFailed(sent);
    expectProblem(await mailgun(mailgunBody(noRecipient)), 400, 'malformed_event');
    expectProblem(
      await mailgun(mailgunBody({ ...mailgunFailed(sent), severity: 'sometimes' })),
      400,
      'malformed_event',
    );
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('Postmark: a hard bounce and a spam complaint with the token are recorded', async () => {
    await subscribed('pm-hard@example.org', 'Postmark list');
    const hard = await mailTo('pm-hard@example.org');
    const since = await lastEventId(t);
    expect((await postmark(postmarkBounce(hard)).expect(200)).body).toEqual({ outcome: 'recorded' });
    expect(await bouncesOf(hard.id)).toEqual([
      { kind: 'hard', source: 'postmark', status: '5.1.1', recipient: 'pm-hard@example.org' },
    ]);
    expect(await suppression('pm-hard@example.org')).toEqual({ reason: 'bounced', messageId: hard.id });
    const sub = await subscriptionOf('pm-hard@example.org');
    expect(sub.deliverability).toBe('bounced');
    expect((await eventsOf(t, a, since)).map((e) => [e.name, e.payload.source])).toEqual([
      ['newsletter.subscription.bounced', 'postmark'],
    ]);
    expect((await postmark(postmarkBounce(hard)).expect(200)).body).toEqual({ outcome: 'duplicate' });

    const angry = await mailTo('pm-angry@example.org');
    const complaint = { RecordType: 'SpamComplaint', MessageID: angry.messageId, Email: angry.to, ID: 7 };
    expect((await postmark(complaint).expect(200)).body).toEqual({ outcome: 'recorded' });
    expect(await suppression('pm-angry@example.org')).toEqual({ reason: 'complained', messageId: angry.id });

    const delivery = { RecordType: 'Delivery', MessageID: angry.messageId, Recipient: angry.to };
    expect((await postmark(delivery).expect(200)).body).toEqual({ outcome: 'ignored' });
  });

  it('SendGrid: a signed batch: a bounce, a block, a spam report and a delivery, each answered in order; a replay counts once', async () => {
    await subscribed('sg-hard@example.org', 'SendGrid list');
    const hard = await mailTo('sg-hard@example.org');
    const blocked = await mailTo('sg-blocked@example.org');
    const angry = await mailTo('sg-angry@example.org');
    const since = await lastEventId(t);
    const raw = JSON.stringify([
      sendgridBounce(hard),
      sendgridBounce(blocked, 'blocked'),
      { email: angry.to, event: 'spamreport', 'smtp-id': `<${angry.messageId}>`, timestamp: 1 },
      { email: angry.to, event: 'delivered', 'smtp-id': `<${angry.messageId}>`, timestamp: 1 },
    ]);
    const headers = sendgridHeaders(raw);
    const res = await sendgrid(raw, headers).expect(200);
    expect(res.body).toEqual({ outcomes: ['recorded', 'recorded', 'recorded', 'ignored'] });
    expect(await bouncesOf(hard.id)).toEqual([
      { kind: 'hard', source: 'sendgrid', status: '5.1.1', recipient: 'sg-hard@example.org' },
    ]);
    expect(await bouncesOf(blocked.id)).toEqual([
      { kind: 'soft', source: 'sendgrid', status: '5.1.1', recipient: 'sg-blocked@example.org' },
    ]);
    expect(await suppression('sg-hard@example.org')).toEqual({ reason: 'bounced', messageId: hard.id });
    expect(await suppression('sg-blocked@example.org')).toBeUndefined();
    expect(await suppression('sg-angry@example.org')).toEqual({ reason: 'complained', messageId: angry.id });
    const sub = await subscriptionOf('sg-hard@example.org');
    expect(sub.deliverability).toBe('bounced');
    expect(await eventsOf(t, a, since)).toEqual([
      {
        name: 'newsletter.subscription.bounced',
        payload: { id: sub.id, messageId: hard.id, campaignId: null, source: 'sendgrid', kind: 'hard' },
      },
    ]);

    const before = await snapshotDatabase(t.db);
    expect((await sendgrid(raw, headers).expect(200)).body).toEqual({
      outcomes: ['duplicate', 'duplicate', 'duplicate', 'duplicate'],
    });
    // Signed anew (SendGrid's retry of the batch): each report counts once per message and kind.
    expect((await sendgrid(raw).expect(200)).body).toEqual({
      outcomes: ['duplicate', 'duplicate', 'duplicate', 'ignored'],
    });
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('SendGrid: unsigned, another key, a changed body, a changed timestamp, stale: 401 and nothing changed; a malformed event: 400', async () => {
    const sent = await mailTo('sg-forged@example.org');
    const raw = JSON.stringify([sendgridBounce(sent)]);
    const good = sendgridHeaders(raw);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const now = Math.floor(Date.now() / 1000);
    const before = await snapshotDatabase(t.db);
    for (const [body, headers] of [
      [raw, {}],
      [raw, { 'x-twilio-email-event-webhook-timestamp': good['x-twilio-email-event-webhook-timestamp'] }],
      [raw, sendgridHeaders(raw, { key: other })],
      [raw.replace('sg-forged', 'sg-forgeD'), good],
      [raw, { ...good, 'x-twilio-email-event-webhook-timestamp': String(now + 1) }],
      [raw, sendgridHeaders(raw, { at: now - 301 })],
      [raw, { ...good, 'x-twilio-email-event-webhook-signature': 'not base64!' }],
    ] as Array<[string, Record<string, string>]>) {
      expectProblem(await sendgrid(body, headers), 401, 'invalid_signature');
    }
    const malformed = JSON.stringify([sendgridBounce(sent), { event: 'bounce', email: 'not an address' }]);
    expectProblem(await sendgrid(malformed), 400, 'malformed_event');
    const object = JSON.stringify(sendgridBounce(sent));
    expectProblem(await sendgrid(object), 400, 'malformed_event');
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('Postmark: without the token or with another one, 401 and nothing changed', async () => {
    const sent = await mailTo('pm-forged@example.org');
    const before = await snapshotDatabase(t.db);
    for (const token of [null, '', 'wrong', `${POSTMARK_TOKEN}x`, POSTMARK_TOKEN.slice(1)]) {
      expectProblem(await postmark(postmarkBounce(sent), token), 401, 'invalid_signature');
    }
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });
});

describe('bounce and complaint webhooks of providers, not configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ databaseUrl: await createFreshDatabase('bounceprovidersoff') });
  });
  afterAll(async () => t?.close());

  it('a provider whose setting is empty answers 404, signed or not', async () => {
    const body = mailgunBody({ event: 'complained', recipient: 'a@example.org' }, { key: '' });
    for (const provider of ['mailgun', 'postmark', 'sendgrid', 'ses']) {
      const res = await request(t.server)
        .post(`${PROVIDERS}/${provider}/events`)
        .set('x-sitebase-webhook-token', '')
        .send(body);
      expectProblem(res, 404, 'not_found');
    }
  });
});
