import addressparser from 'nodemailer/lib/addressparser';
import { createPublicKey, KeyObject } from 'node:crypto';
import { isHostName, listOf, SettingKind, shaped, url } from './setting-kinds';

/**
 * The kinds of the settings whose shape is Sitebase's own or a provider's (setting-kinds.ts has
 * the general ones): one function each, named after what it reads.
 */

/**
 * SendGrid's webhook verification key (it shows it as base64 DER SubjectPublicKeyInfo, ECDSA
 * P-256); null when unusable. The setting's check and the webhook's verifier both read it so.
 */
export function sendgridKey(base64: string): KeyObject | null {
  try {
    const key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : null;
  } catch {
    return null;
  }
}

/** postgres://user:password@host:5432/database (also postgresql://, and ?host=/socket/folder). */
export const databaseUrl = (): SettingKind<string> =>
  url({
    protocols: ['postgres:', 'postgresql:'],
    bare: false,
    accepts: 'use a postgres:// URL such as postgres://user:password@localhost:5432/sitebase',
  });

/** smtp://user:pass@host:587 or smtps://…:465 (nodemailer's query options allowed). */
export const smtpUrl = (): SettingKind<string> =>
  url({
    protocols: ['smtp:', 'smtps:'],
    bare: false,
    accepts: 'use an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587',
  });

export const apiKey = (): SettingKind<string> =>
  shaped(/^sb_(live|test)_[A-Za-z0-9]{32,200}$/, 'use an API key such as sb_live_<32+ base62>');

export const siteName = (): SettingKind<string> =>
  shaped(
    /^[a-z0-9][a-z0-9-]{0,62}$/,
    'use a site name: lowercase letters, digits and dashes (at most 63), not starting with a dash',
  );

/** The URL path stored files are served under. */
export const urlPath = (): SettingKind<string> =>
  shaped(/^(\/[a-z0-9_-]+)+$/, 'use a path such as /files (lowercase letters, digits, _ and -)');

/** S3's bucket naming rules (S3-compatible stores follow them). */
export const bucketName = (): SettingKind<string> =>
  shaped(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'use a bucket name: 3 to 63 lowercase letters, digits, dots and dashes');

/** AWS regions (us-east-1), and other stores' names for theirs (R2's auto). */
export const s3Region = (): SettingKind<string> =>
  shaped(/^[a-z0-9][a-z0-9-]{0,62}$/, 'use a region such as us-east-1 (or auto)');

/** A lower-case domain of at least two labels (bounces.example.com). */
export const mailDomain = (): SettingKind<string> =>
  shaped(
    /^[a-z0-9.-]+$/,
    'use a lower-case domain such as bounces.example.com',
    (t) => t.includes('.') && isHostName(t),
  );

/** `address` or `Name <address>`, on one line. */
const MAILBOX = /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;
/**
 * One mailbox, as nodemailer's address parser (which MAIL_FROM is read with, sender-policy.ts)
 * sees it: `a@x.test, b@y.test` are two.
 */
export const mailbox = (): SettingKind<string> =>
  shaped(MAILBOX, 'use one address, or "Name <address>"', (text) => {
    const parsed = addressparser(text, { flatten: true });
    return parsed.length === 1 && /^[^\s<>@]+@[^\s<>@]+$/.test(parsed[0].address ?? '');
  });

/** SendGrid's verification key: base64 DER (SPKI) of an ECDSA P-256 key, loaded as the service loads it. */
export const sendgridPublicKey = (): SettingKind<string> =>
  shaped(
    /^[A-Za-z0-9+/]{40,400}={0,2}$/,
    'use the base64 verification key SendGrid shows (DER SPKI, ECDSA P-256)',
    (t) => sendgridKey(t) !== null,
  );

/** An SNS topic's ARN (aws, aws-cn, aws-us-gov partitions; FIFO topics end in `.fifo`). */
const SNS_TOPIC_ARN = /^arn:aws(?:-[a-z]+)*:sns:[a-z0-9-]{3,40}:\d{12}:[A-Za-z0-9_-]{1,256}(?:\.fifo)?$/;
export const snsTopicArns = (): SettingKind<string[]> =>
  listOf(shaped(SNS_TOPIC_ARN, 'an SNS topic ARN'), {
    maxItems: 100,
    accepts: 'use SNS topic ARNs separated by commas (arn:aws:sns:<region>:<account>:<topic>)',
  });

/**
 * The key that seals stored secrets: 32 bytes written as base64 (44 characters) or hex (64);
 * null when the text is neither. The setting's check and the sealing both read it so.
 */
export function secretsKeyBytes(text: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}

export const secretsKey = (): SettingKind<string> => ({
  ...shaped(/^\S+$/, 'use 32 random bytes as base64 or hex (openssl rand -base64 32)', (t) => !!secretsKeyBytes(t)),
  secret: true,
});

/** Stripe's secret and restricted keys of one mode: sk_test_…, rk_test_… (sk_live_…, rk_live_…). */
export const STRIPE_KEY_SHAPE = {
  test: /^(sk|rk)_test_[A-Za-z0-9]{10,247}$/,
  live: /^(sk|rk)_live_[A-Za-z0-9]{10,247}$/,
} as const;
/** A Stripe webhook endpoint's signing secret. */
export const STRIPE_WEBHOOK_SECRET_SHAPE = /^whsec_[A-Za-z0-9+/=]{16,200}$/;

export const stripeKey = (mode: 'test' | 'live'): SettingKind<string> =>
  shaped(STRIPE_KEY_SHAPE[mode], `use a Stripe ${mode}-mode secret or restricted key (sk_${mode}_… or rk_${mode}_…)`);

export const stripeWebhookSecret = (): SettingKind<string> =>
  shaped(STRIPE_WEBHOOK_SECRET_SHAPE, 'use a Stripe webhook signing secret (whsec_…)');
