import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { TestApp } from '../support/app';
import { mailThrough, SentCopy as Sent } from '../support/bounces';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { mailgunBody, relaySecrets, sendgridHeaders } from '../support/provider-webhooks';
import { bounceState, mailApp } from '../support/bounce-state';
import { SmtpSink } from '../support/smtp';
import { Tenant } from '../support/tenant';

const PROVIDERS = '/api/v2/email/providers';
const BOUNCE_DOMAIN = 'bounces.sitebase.test';
const RELAYS = relaySecrets();
const MAILGUN_KEY = RELAYS.mailgunKey;
const POSTMARK_TOKEN = RELAYS.postmarkToken;
const SENDGRID = RELAYS.sendgrid;

/** The copy's VERP token: the local part of its envelope sender after `bounces+`. */
const tokenOf = (sent: Sent) => /^bounces\+([^@]+)@/.exec(sent.verp)![1];

/** A header of the copy as received (unfolded), or undefined; every value when `all`. */
function headersNamed(raw: string, name: string): string[] {
  const head = raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  return head
    .split(/\r?\n/)
    .filter((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    .map((line) => line.slice(name.length + 1).trim());
}
const header = (sent: Sent, name: string) => headersNamed(sent.raw, name)[0];

/** The token with one signature character changed: the same message, forged. */
function altered(token: string): string {
  const last = token[token.length - 1];
  return token.slice(0, -1) + (last === 'a' ? 'b' : 'a');
}

/**
 * Provider events tied to the message by the VERP token each copy carries in the relay's own
 * per-message field (docs/deliverability.md, "Which message"; src/email/bounces/provider-headers.ts):
 * copies sent through an SMTP sink, events that name neither our envelope nor our Message-ID.
 */
describe('provider events tied to their message by the correlation token', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;

  const app = mailApp('bouncecorrelation', { BOUNCE_DOMAIN, ...RELAYS.env });
  beforeAll(() => ({ t, a, smtp } = app));

  const state = bounceState(() => ({ t, a }));
  const { subscribed, subscriptionOf, bouncesOf, suppression } = state;
  const mailTo = (to: string) => state.mailTo(smtp, to);

  const postmark = (body: object) =>
    request(t.server).post(`${PROVIDERS}/postmark/events`).set('x-sitebase-webhook-token', POSTMARK_TOKEN).send(body);
  const sendgrid = (events: object[]) => {
    const raw = JSON.stringify(events);
    return request(t.server)
      .post(`${PROVIDERS}/sendgrid/events`)
      .set(sendgridHeaders(raw, SENDGRID.privateKey))
      .type('json')
      .send(raw);
  };
  const mailgun = (data: Record<string, unknown>) =>
    request(t.server).post(`${PROVIDERS}/mailgun/events`).send(mailgunBody(data, MAILGUN_KEY));

  /** A Postmark Bounce as its webhook posts it: its own MessageID (a GUID), our token in Metadata. */
  const postmarkBounce = (sent: Sent, token: string, type = 'HardBounce') => ({
    RecordType: 'Bounce',
    ID: 42,
    Type: type,
    TypeCode: 1,
    MessageID: randomUUID(),
    Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist',
    Email: sent.to,
    BouncedAt: new Date().toISOString(),
    Metadata: { sitebase_verp: token },
  });
  /** A SendGrid spamreport: an engagement event, without smtp-id; the unique argument is top-level. */
  const spamreport = (sent: Sent, token: string) => ({
    email: sent.to,
    timestamp: Math.floor(Date.now() / 1000),
    event: 'spamreport',
    sg_event_id: randomBytes(8).toString('hex'),
    sitebase_verp: token,
  });
  /** A Mailgun failure of a relay that put its own envelope sender and Message-ID on the copy. */
  const mailgunFailed = (sent: Sent, token: string) => ({
    event: 'failed',
    severity: 'permanent',
    reason: 'bounce',
    recipient: sent.to,
    envelope: { sender: `bounce+${randomBytes(6).toString('hex')}@mg.relay.example` },
    'delivery-status': { code: 550, message: '5.1.1 The email account that you tried to reach does not exist' },
    message: { headers: { 'message-id': `${randomUUID()}@mg.relay.example`, to: sent.to } },
    'user-variables': { sitebase_verp: token },
  });

  it('each configured relay’s header carries the copy’s VERP token, once', async () => {
    const sent = await mailTo('headers@example.org');
    const token = tokenOf(sent);
    expect(token).toMatch(/^[0-9a-z]+-[a-z2-7]{16}$/);
    expect(header(sent, 'X-PM-Metadata-sitebase_verp')).toBe(token);
    expect(header(sent, 'X-PM-KeepID')).toBe('true');
    expect(JSON.parse(header(sent, 'X-SMTPAPI'))).toEqual({ unique_args: { sitebase_verp: token } });
    expect(JSON.parse(header(sent, 'X-Mailgun-Variables'))).toEqual({ sitebase_verp: token });
    // Written as they are: a relay reads them literally (no RFC 2047 word, no folding).
    expect(sent.raw).toContain(`\r\nX-SMTPAPI: {"unique_args":{"sitebase_verp":"${token}"}}\r\n`);
    expect(sent.raw).toContain(`\r\nX-Mailgun-Variables: {"sitebase_verp":"${token}"}\r\n`);
    // One of each: the copy's own headers never add a second value.
    for (const name of ['X-PM-Metadata-sitebase_verp', 'X-SMTPAPI', 'X-Mailgun-Variables'])
      expect(headersNamed(sent.raw, name)).toHaveLength(1);
    // Another copy, another token.
    const other = await mailTo('headers-2@example.org');
    expect(header(other, 'X-PM-Metadata-sitebase_verp')).toBe(tokenOf(other));
    expect(tokenOf(other)).not.toBe(token);
  });

  it('Postmark: a bounce naming the message only by its Metadata token marks the right subscription', async () => {
    await subscribed('pm-token@example.org', 'Postmark correlation');
    const sent = await mailTo('pm-token@example.org');
    const since = await lastEventId(t);
    expect((await postmark(postmarkBounce(sent, tokenOf(sent))).expect(200)).body).toEqual({ outcome: 'recorded' });
    expect(await bouncesOf(sent.id)).toEqual([
      { kind: 'hard', source: 'postmark', status: '5.1.1', recipient: 'pm-token@example.org' },
    ]);
    expect(await suppression('pm-token@example.org')).toEqual({ reason: 'bounced', messageId: sent.id });
    const sub = await subscriptionOf('pm-token@example.org');
    expect(sub.deliverability).toBe('bounced');
    expect(await eventsOf(t, a, since)).toEqual([
      {
        name: 'newsletter.subscription.bounced',
        payload: { id: sub.id, messageId: sent.id, campaignId: null, source: 'postmark', kind: 'hard' },
      },
    ]);
    // The same message reported again by Postmark (another GUID each time): once per message and kind.
    expect((await postmark(postmarkBounce(sent, tokenOf(sent))).expect(200)).body).toEqual({ outcome: 'duplicate' });
  });

  it('Postmark: Blocked is the receiver’s decision, a soft bounce: recorded, the address not suppressed', async () => {
    await subscribed('pm-blocked@example.org', 'Postmark blocked');
    const sent = await mailTo('pm-blocked@example.org');
    const body = { ...postmarkBounce(sent, tokenOf(sent), 'Blocked'), Details: 'smtp;554 5.7.1 Message rejected' };
    expect((await postmark(body).expect(200)).body).toEqual({ outcome: 'recorded' });
    expect(await bouncesOf(sent.id)).toEqual([
      { kind: 'soft', source: 'postmark', status: '5.7.1', recipient: 'pm-blocked@example.org' },
    ]);
    expect(await suppression('pm-blocked@example.org')).toBeUndefined();
    expect((await subscriptionOf('pm-blocked@example.org')).deliverability).not.toBe('bounced');
    const deactivated = postmarkBounce(sent, tokenOf(sent), 'ManuallyDeactivated');
    expect((await postmark(deactivated).expect(200)).body).toEqual({ outcome: 'ignored' });
  });

  it('SendGrid: a spamreport without smtp-id is matched by its unique argument', async () => {
    const sent = await mailTo('sg-token@example.org');
    expect((await sendgrid([spamreport(sent, tokenOf(sent))]).expect(200)).body).toEqual({ outcomes: ['recorded'] });
    expect(await bouncesOf(sent.id)).toEqual([
      { kind: 'complaint', source: 'sendgrid', status: null, recipient: 'sg-token@example.org' },
    ]);
    expect(await suppression('sg-token@example.org')).toEqual({ reason: 'complained', messageId: sent.id });
  });

  it('the token comes first: a bounce with one copy’s token and another’s smtp-id is the token’s', async () => {
    const first = await mailTo('sg-first@example.org');
    const second = await mailTo('sg-second@example.org');
    const bounce = {
      email: second.to,
      timestamp: Math.floor(Date.now() / 1000),
      'smtp-id': `<${second.messageId}>`,
      event: 'bounce',
      type: 'bounce',
      status: '5.1.1',
      reason: '550 5.1.1 unknown user',
      sitebase_verp: tokenOf(first),
    };
    expect((await sendgrid([bounce]).expect(200)).body).toEqual({ outcomes: ['recorded'] });
    // The message's own recipient, whatever the event says.
    expect(await bouncesOf(first.id)).toEqual([
      { kind: 'hard', source: 'sendgrid', status: '5.1.1', recipient: 'sg-first@example.org' },
    ]);
    expect(await bouncesOf(second.id)).toEqual([]);
  });

  it('Mailgun: an event with the relay’s own envelope and Message-ID is matched by user-variables', async () => {
    const sent = await mailTo('mg-token@example.org');
    expect((await mailgun(mailgunFailed(sent, tokenOf(sent))).expect(200)).body).toEqual({ outcome: 'recorded' });
    expect(await bouncesOf(sent.id)).toEqual([
      { kind: 'hard', source: 'mailgun', status: '5.1.1', recipient: 'mg-token@example.org' },
    ]);
    expect(await suppression('mg-token@example.org')).toEqual({ reason: 'bounced', messageId: sent.id });
  });

  it('a forged or altered token matches nothing: unmatched, nothing changed', async () => {
    await subscribed('forged@example.org', 'Forged tokens');
    const sent = await mailTo('forged@example.org');
    const token = tokenOf(sent);
    const [id, sig] = token.split('-');
    const forgeries = [
      altered(token),
      // Another message's id with this signature, a signature of the right shape made up.
      `${(parseInt(id, 36) + 1).toString(36)}-${sig}`,
      `${id}-${'a'.repeat(16)}`,
      // Not canonical (a leading zero), and not a token at all.
      `0${token}`,
      `${id}`,
    ];
    const before = await snapshotDatabase(t.db);
    for (const forged of forgeries) {
      expect((await postmark(postmarkBounce(sent, forged)).expect(200)).body).toEqual({ outcome: 'unmatched' });
      expect((await sendgrid([spamreport(sent, forged)]).expect(200)).body).toEqual({ outcomes: ['unmatched'] });
      expect((await mailgun(mailgunFailed(sent, forged)).expect(200)).body).toEqual({ outcome: 'unmatched' });
    }
    expect(await snapshotDatabase(t.db)).toEqual(before);
    expect((await subscriptionOf('forged@example.org')).deliverability).not.toBe('bounced');
  });
});

describe('provider correlation headers, no provider configured', () => {
  const app = mailApp('bouncecorrelationoff', { BOUNCE_DOMAIN });

  it('the copy has its VERP envelope sender but none of the relays’ headers', async () => {
    const sent = await mailThrough(app.a, app.smtp, 'plain@example.org');
    expect(sent.verp).toMatch(/^bounces\+[0-9a-z]+-[a-z2-7]{16}@bounces\.sitebase\.test$/);
    const head = sent.raw.split(/\r?\n\r?\n/)[0];
    expect(head).not.toMatch(/^(X-PM-|X-SMTPAPI|X-Mailgun-)/im);
    expect(head).not.toContain(tokenOf(sent));
    expect(head).toMatch(/^X-Sitebase-Message-Id: /im);
  });
});
