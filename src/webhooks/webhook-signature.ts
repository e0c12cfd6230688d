import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new endpoint secret: `whsec_` and 24 random bytes in base64, as the Standard Webhooks spec writes them. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

const signers = new Map<string, Webhook>();

function signer(secret: string): Webhook {
  let w = signers.get(secret);
  if (!w) {
    if (signers.size > 10_000) signers.clear();
    w = new Webhook(secret);
    signers.set(secret, w);
  }
  return w;
}

/**
 * The `webhook-signature` header (Standard Webhooks, with the `standardwebhooks` package):
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for each secret, space-separated. During a
 * rotation's grace period both the new and the previous secret sign, so a receiver that still
 * has the old one verifies too.
 */
export function signatureHeader(secrets: string[], webhookId: string, timestamp: Date, body: string): string {
  return secrets.map((s) => signer(s).sign(webhookId, timestamp, body)).join(' ');
}

/** The three Standard Webhooks headers of one attempt. */
export function webhookHeaders(
  secrets: string[],
  webhookId: string,
  timestamp: Date,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, webhookId, timestamp, body),
  };
}
