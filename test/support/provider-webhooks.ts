import { createHmac, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * Provider webhook calls signed as the providers sign them (docs/deliverability.md, "From a
 * provider"), for the tests of src/email/bounces/providers.
 */

/** SendGrid's signature headers for these exact bytes: base64 DER ECDSA-SHA256 of timestamp + body. */
export function sendgridHeaders(raw: string, key: KeyObject, at = Math.floor(Date.now() / 1000)) {
  const timestamp = String(at);
  const signature = sign('sha256', Buffer.from(timestamp + raw), key).toString('base64');
  return {
    'x-twilio-email-event-webhook-signature': signature,
    'x-twilio-email-event-webhook-timestamp': timestamp,
  };
}

/** A Mailgun webhook body, signed as Mailgun signs it: hex HMAC-SHA256(key, timestamp + token). */
export function mailgunBody(
  eventData: Record<string, unknown>,
  key: string,
  opts: { at?: number; token?: string } = {},
) {
  const timestamp = String(opts.at ?? Math.floor(Date.now() / 1000));
  const token = opts.token ?? randomBytes(25).toString('hex');
  const signature = createHmac('sha256', key)
    .update(timestamp + token)
    .digest('hex');
  return { signature: { timestamp, token, signature }, 'event-data': eventData };
}

/**
 * A test file's relay settings, made once: Mailgun's signing key, Postmark's token and a SendGrid
 * key pair (the app gets the public half), with the environment that configures all three.
 */
export function relaySecrets() {
  const mailgunKey = 'key-' + randomBytes(16).toString('hex');
  const postmarkToken = randomBytes(24).toString('base64url');
  const sendgrid = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    mailgunKey,
    postmarkToken,
    sendgrid,
    env: {
      MAILGUN_WEBHOOK_SIGNING_KEY: mailgunKey,
      POSTMARK_WEBHOOK_TOKEN: postmarkToken,
      SENDGRID_WEBHOOK_PUBLIC_KEY: sendgrid.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    },
  };
}
