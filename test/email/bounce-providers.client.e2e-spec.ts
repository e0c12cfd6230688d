import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { withClient } from '../support/api-client';
import { snapshotDatabase } from '../support/db-snapshot';
import { fakeSns, makeSnsSigner, signedSns, SNS_CERT_URL, SNS_TOPIC } from '../support/sns';

const MAILGUN_KEY = randomBytes(16).toString('hex');
const POSTMARK_TOKEN = randomBytes(24).toString('base64url');
const SENDGRID = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const SNS = fakeSns();
const SNS_SIGNER = makeSnsSigner();
SNS.certificates.set(SNS_CERT_URL, SNS_SIGNER.certificate);

/**
 * The providers' webhooks, called through the generated client: every answer is checked against
 * the document. Events that name no message of ours: answered, nothing changed
 * (bounce-providers.e2e-spec.ts tests what they record).
 */
describe('generated client: email provider webhooks', () => {
  const s = withClient(1, {
    env: {
      MAILGUN_WEBHOOK_SIGNING_KEY: MAILGUN_KEY,
      POSTMARK_WEBHOOK_TOKEN: POSTMARK_TOKEN,
      SENDGRID_WEBHOOK_PUBLIC_KEY: SENDGRID.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      SES_SNS_TOPIC_ARNS: SNS_TOPIC,
    },
    extraModules: [SNS.module],
  });

  it('Amazon SES: a signed notification for no message of ours is unmatched, a confirmation is confirmed, an unsigned one a 401', async () => {
    const before = await snapshotDatabase(s.t.db);
    const complaint = JSON.stringify({
      notificationType: 'Complaint',
      complaint: { complainedRecipients: [{ emailAddress: 'nobody@example.org' }] },
      mail: { source: 'no-reply@example.org', commonHeaders: { messageId: '<x@y>' } },
    });
    const ses = await s.api.POST('/api/v2/email/providers/ses/events', {
      body: signedSns(SNS_SIGNER, 'Notification', complaint),
    });
    expect([ses.response.status, ses.data]).toEqual([200, { type: 'Notification', outcomes: ['unmatched'] }]);
    const confirmation = signedSns(SNS_SIGNER, 'SubscriptionConfirmation', 'Confirm');
    const confirmed = await s.api.POST('/api/v2/email/providers/ses/events', { body: confirmation });
    expect([confirmed.response.status, confirmed.data]).toEqual([
      200,
      { type: 'SubscriptionConfirmation', outcomes: [] },
    ]);
    expect(SNS.confirmed).toEqual([confirmation.SubscribeURL]);
    const unsigned = await s.api.POST('/api/v2/email/providers/ses/events', { body: { Type: 'Notification' } });
    expect([unsigned.response.status, unsigned.error?.code]).toEqual([401, 'invalid_signature']);
    expect({ ...(await snapshotDatabase(s.t.db)), idempotency_keys: '' }).toEqual({ ...before, idempotency_keys: '' });
  });

  it('Mailgun, Postmark and SendGrid: a signed event for no message of ours is unmatched, an unsigned one a 401', async () => {
    const before = await snapshotDatabase(s.t.db);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const token = randomBytes(25).toString('hex');
    const signature = createHmac('sha256', MAILGUN_KEY)
      .update(timestamp + token)
      .digest('hex');
    const complaint = {
      event: 'complained',
      recipient: 'nobody@example.org',
      message: { headers: { 'message-id': 'x@y' } },
    };
    const mg = await s.api.POST('/api/v2/email/providers/mailgun/events', {
      body: { signature: { timestamp, token, signature }, 'event-data': complaint },
    });
    expect([mg.response.status, mg.data]).toEqual([200, { outcome: 'unmatched' }]);
    const unsigned = await s.api.POST('/api/v2/email/providers/mailgun/events', { body: { 'event-data': complaint } });
    expect([unsigned.response.status, unsigned.error?.code]).toEqual([401, 'invalid_signature']);

    const pm = await s.api.POST('/api/v2/email/providers/postmark/events', {
      params: { header: { 'x-sitebase-webhook-token': POSTMARK_TOKEN } },
      body: { RecordType: 'SpamComplaint', Email: 'nobody@example.org', MessageID: 'x@y' },
    });
    expect([pm.response.status, pm.data]).toEqual([200, { outcome: 'unmatched' }]);

    const events = [{ event: 'spamreport', email: 'nobody@example.org', 'smtp-id': '<x@y>', timestamp: 1 }];
    const signed = sign('sha256', Buffer.from(timestamp + JSON.stringify(events)), SENDGRID.privateKey);
    const sg = await s.api.POST('/api/v2/email/providers/sendgrid/events', {
      params: {
        header: {
          'x-twilio-email-event-webhook-signature': signed.toString('base64'),
          'x-twilio-email-event-webhook-timestamp': timestamp,
        },
      },
      body: events,
    });
    expect([sg.response.status, sg.data]).toEqual([200, { outcomes: ['unmatched'] }]);
    // The SDK's Idempotency-Key on every POST is kept; nothing else changed.
    expect({ ...(await snapshotDatabase(s.t.db)), idempotency_keys: '' }).toEqual({ ...before, idempotency_keys: '' });
  });

  it('calls every operation of its group', () => {
    expect(s.contract.uncalled(['Admin: email providers'])).toEqual([]);
  });
});
