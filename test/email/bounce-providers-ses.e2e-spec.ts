import request from 'supertest';
import { TestApp } from '../support/app';
import { SentCopy as Sent } from '../support/bounces';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { bounceState, mailApp } from '../support/bounce-state';
import { SmtpSink } from '../support/smtp';
import {
  fakeSns,
  FakeSns,
  makeSnsSigner,
  signedSns,
  SNS_CERT_URL,
  SNS_TOPIC,
  SnsOptions,
  SnsSigner,
} from '../support/sns';
import { Tenant } from '../support/tenant';

const SES = '/api/v2/email/providers/ses/events';
const BOUNCE_DOMAIN = 'bounces.sitebase.test';

/**
 * Amazon SES bounces and complaints through SNS (docs/deliverability.md, "Amazon SES"): SNS
 * messages signed by the test with a certificate of its own, served by a fake SNS client that
 * records every URL the app asked for; copies the app really sent through an SMTP sink.
 */
describe('Amazon SES events through SNS', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let a: Tenant;

  const sns: FakeSns = fakeSns();
  const signer: SnsSigner = makeSnsSigner();
  sns.certificates.set(SNS_CERT_URL, signer.certificate);
  const app = mailApp(
    'bounceses',
    {
      BOUNCE_DOMAIN,
      SES_SNS_TOPIC_ARNS: `arn:aws:sns:us-east-1:123456789012:other, ${SNS_TOPIC}`,
      MAILGUN_WEBHOOK_SIGNING_KEY: 'key-mailgun-signing',
    },
    { extraModules: [sns.module] },
  );
  beforeAll(() => ({ t, a, smtp } = app));

  const state = bounceState(() => ({ t, a }));
  const { subscribed, subscriptionOf, bouncesOf, suppression } = state;
  const mailTo = (to: string) => state.mailTo(smtp, to);

  /** As SNS posts: JSON labelled text/plain. */
  const post = (body: unknown) =>
    request(t.server)
      .post(SES)
      .set('content-type', 'text/plain; charset=UTF-8')
      .set('x-amz-sns-message-type', String((body as { Type?: string }).Type))
      .send(JSON.stringify(body));

  /** The SES event of a copy, as a configuration set publishes it (original headers included). */
  function sesEvent(sent: Sent, event: Record<string, unknown>, mail: Record<string, unknown> = {}): string {
    return JSON.stringify({
      ...event,
      mail: {
        timestamp: new Date().toISOString(),
        source: 'no-reply@sitebase.test',
        messageId: '0100018c-ses-own-id-000000',
        destination: [sent.to],
        headersTruncated: false,
        headers: [
          { name: 'From', value: 'Sitebase <no-reply@sitebase.test>' },
          { name: 'Message-ID', value: `<${sent.messageId}>` },
        ],
        commonHeaders: { messageId: `<${sent.messageId}>`, subject: 'x' },
        ...mail,
      },
    });
  }
  const bounce = (sent: Sent, bounceType: string, status = '5.1.1') =>
    sesEvent(sent, {
      eventType: 'Bounce',
      bounce: {
        bounceType,
        bounceSubType: 'General',
        bouncedRecipients: [
          { emailAddress: sent.to, action: 'failed', status, diagnosticCode: `smtp; 550 ${status} no` },
        ],
        timestamp: new Date().toISOString(),
      },
    });
  const notification = (message: string, opts: SnsOptions = {}) => signedSns(signer, 'Notification', message, opts);

  it.each(['1', '2'] as const)(
    'signature version %s: a Permanent bounce suppresses the address and marks the subscription; the same MessageId again counts once',
    async (version) => {
      const email = `ses-hard-v${version}@example.org`;
      await subscribed(email);
      const sent = await mailTo(email);
      const since = await lastEventId(t);
      const body = notification(bounce(sent, 'Permanent'), { version });
      expect((await post(body).expect(200)).body).toEqual({ type: 'Notification', outcomes: ['recorded'] });
      expect(await bouncesOf(sent.id)).toEqual([{ kind: 'hard', source: 'ses', status: '5.1.1', recipient: email }]);
      expect(await suppression(email)).toEqual({ reason: 'bounced', messageId: sent.id });
      const sub = await subscriptionOf(email);
      expect(sub.deliverability).toBe('bounced');
      expect(await eventsOf(t, a, since)).toEqual([
        {
          name: 'newsletter.subscription.bounced',
          payload: { id: sub.id, messageId: sent.id, campaignId: null, source: 'ses', kind: 'hard' },
        },
      ]);

      const before = await snapshotDatabase(t.db);
      // SNS's retry: the same message (MessageId) again.
      expect((await post(body).expect(200)).body).toEqual({ type: 'Notification', outcomes: ['duplicate'] });
      // Another SNS message for the same report: once per message and kind.
      const again = notification(bounce(sent, 'Permanent'), { version });
      expect((await post(again).expect(200)).body).toEqual({ type: 'Notification', outcomes: ['duplicate'] });
      expect(await snapshotDatabase(t.db)).toEqual(before);
    },
  );

  it('a Transient bounce (v1) is a soft bounce; a Complaint (v2) suppresses as complained; a Delivery is ignored', async () => {
    const soft = await mailTo('ses-soft@example.org');
    const res = await post(notification(bounce(soft, 'Transient', '4.2.2'), { version: '1' })).expect(200);
    expect(res.body).toEqual({ type: 'Notification', outcomes: ['recorded'] });
    expect(await bouncesOf(soft.id)).toEqual([
      { kind: 'soft', source: 'ses', status: '4.2.2', recipient: 'ses-soft@example.org' },
    ]);
    expect(await suppression('ses-soft@example.org')).toBeUndefined();

    await subscribed('ses-angry@example.org');
    const angry = await mailTo('ses-angry@example.org');
    const complaint = sesEvent(angry, {
      notificationType: 'Complaint',
      complaint: { complainedRecipients: [{ emailAddress: angry.to }], complaintFeedbackType: 'abuse' },
    });
    expect((await post(notification(complaint, { version: '2' })).expect(200)).body).toEqual({
      type: 'Notification',
      outcomes: ['recorded'],
    });
    expect(await suppression('ses-angry@example.org')).toEqual({ reason: 'complained', messageId: angry.id });
    expect((await subscriptionOf('ses-angry@example.org')).deliverability).toBe('complained');

    const before = await snapshotDatabase(t.db);
    const delivery = sesEvent(angry, { eventType: 'Delivery', delivery: { recipients: [angry.to] } });
    expect((await post(notification(delivery)).expect(200)).body).toEqual({
      type: 'Notification',
      outcomes: ['ignored'],
    });
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('matched by the VERP address SES reports as mail.source when the original headers are left out', async () => {
    const sent = await mailTo('ses-verp@example.org');
    expect(sent.verp).toMatch(new RegExp(`^bounces\\+[a-z0-9]+-[a-z0-9]+@${BOUNCE_DOMAIN.replace(/\./g, '\\.')}$`));
    const event = bounce(sent, 'Permanent');
    const withoutHeaders = sesEvent(sent, JSON.parse(event) as Record<string, unknown>, {
      source: sent.verp,
      headers: undefined,
      commonHeaders: undefined,
    });
    expect((await post(notification(withoutHeaders)).expect(200)).body.outcomes).toEqual(['recorded']);
    expect(await suppression('ses-verp@example.org')).toEqual({ reason: 'bounced', messageId: sent.id });
  });

  it('a guessed Message-ID with another recipient is unmatched; an unreadable SES event is a 400; nothing changed', async () => {
    const sent = await mailTo('ses-victim@example.org');
    const before = await snapshotDatabase(t.db);
    const guessed = bounce({ ...sent, to: 'attacker@example.org' }, 'Permanent');
    expect((await post(notification(guessed)).expect(200)).body.outcomes).toEqual(['unmatched']);
    for (const message of ['not json', JSON.stringify({ eventType: 'Bounce', bounce: {} }), bounce(sent, 'Often')])
      expectProblem(await post(notification(message)), 400, 'malformed_event');
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('a signed SubscriptionConfirmation GETs its SubscribeURL through the SNS client; an UnsubscribeConfirmation only answers 200', async () => {
    sns.fetched.length = 0;
    sns.confirmed.length = 0;
    const confirmation = signedSns(signer, 'SubscriptionConfirmation', `You have chosen to subscribe to ${SNS_TOPIC}`);
    expect((await post(confirmation).expect(200)).body).toEqual({ type: 'SubscriptionConfirmation', outcomes: [] });
    expect(sns.confirmed).toEqual([confirmation.SubscribeURL]);

    sns.confirmed.length = 0;
    const unsubscribe = signedSns(signer, 'UnsubscribeConfirmation', 'You have unsubscribed');
    expect((await post(unsubscribe).expect(200)).body).toEqual({ type: 'UnsubscribeConfirmation', outcomes: [] });
    expect(sns.confirmed).toEqual([]);

    // SNS not answering: a 503 (SNS sends the confirmation again), nothing confirmed.
    sns.confirmFails = true;
    try {
      expectProblem(await post(signedSns(signer, 'SubscriptionConfirmation', 'again')), 503, 'sns_unavailable');
    } finally {
      sns.confirmFails = false;
    }
    expect(sns.confirmed).toEqual([]);
  });

  it('a SubscribeURL or SigningCertURL off the SNS hosts is a 401 before any fetch', async () => {
    const sent = await mailTo('ses-certhost@example.org');
    sns.fetched.length = 0;
    const before = await snapshotDatabase(t.db);
    for (const subscribeUrl of [
      'https://attacker.example/?Action=ConfirmSubscription',
      'http://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription',
      'https://sns.eu-west-1.amazonaws.com.attacker.example/',
      'https://169.254.169.254/latest/meta-data/',
    ]) {
      expectProblem(
        await post(signedSns(signer, 'SubscriptionConfirmation', 'x', { subscribeUrl })),
        401,
        'invalid_signature',
      );
    }
    for (const certUrl of [
      'https://attacker.example/SimpleNotificationService-1.pem',
      'http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem',
      'https://sns.eu-west-1.amazonaws.com.attacker.example/SimpleNotificationService-1.pem',
      'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.txt',
      'https://127.0.0.1:8443/SimpleNotificationService-1.pem',
    ]) {
      expectProblem(await post(notification(bounce(sent, 'Permanent'), { certUrl })), 401, 'invalid_signature');
    }
    expect(sns.fetched).toEqual([]);
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('unsigned, badly signed, another key, another topic, stale or ahead: 401 and nothing changed', async () => {
    const sent = await mailTo('ses-forged@example.org');
    const message = bounce(sent, 'Permanent');
    const good = notification(message);
    const other = makeSnsSigner();
    const flipped = good.Signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    const before = await snapshotDatabase(t.db);
    for (const [body, code] of [
      [{ ...good, Signature: undefined }, 'invalid_signature'],
      [{ ...good, Signature: flipped }, 'invalid_signature'],
      [{ ...good, Message: message.replace('Permanent', 'Transient') }, 'invalid_signature'],
      [{ ...good, SignatureVersion: '3' }, 'invalid_signature'],
      [signedSns(other, 'Notification', message), 'invalid_signature'],
      [notification(message, { topic: 'arn:aws:sns:eu-west-1:123456789012:someone-else' }), 'invalid_signature'],
      [notification(message, { at: new Date(Date.now() - 3601_000) }), 'invalid_signature'],
      [notification(message, { at: new Date(Date.now() + 600_000) }), 'invalid_signature'],
      [{ ...good, Type: 'Other' }, 'invalid_signature'],
      [{ 'event-data': {} }, 'invalid_signature'],
    ] as Array<[Record<string, unknown>, string]>) {
      expectProblem(await post(body), 401, code);
    }
    expect(await snapshotDatabase(t.db)).toEqual(before);
  });

  it('a certificate SNS does not serve is a 503 (SNS retries), nothing changed; text/plain on any other route is still 415', async () => {
    const sent = await mailTo('ses-nocert@example.org');
    const before = await snapshotDatabase(t.db);
    const certUrl = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-unknown.pem';
    expectProblem(await post(notification(bounce(sent, 'Permanent'), { certUrl })), 503, 'sns_unavailable');
    expect(await snapshotDatabase(t.db)).toEqual(before);

    const text = (path: string) =>
      request(t.server).post(path).set('content-type', 'text/plain; charset=UTF-8').send('{"signature":{}}');
    expectProblem(await text('/api/v2/email/providers/mailgun/events'), 415, 'unsupported_media_type');
    expectProblem(await text('/api/v2/email/providers/sendgrid/events'), 415, 'unsupported_media_type');
  });
});
