import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { printed } from '../../test/support/startup-printed';
import { CONFIG_KEYS, Configs } from './configs';

/**
 * Issue 42, row 8: every setting is read strictly. Each one gets values it must refuse, through
 * loadConfigs (what main runs first); each refusal is one line naming the setting, which main
 * prints as `Sitebase could not start: …` before exiting 1 (test/foundation/startup-errors
 * runs a handful through the real entry point). What the settings read when right, and the ones
 * required by others: setting-values.spec.ts.
 */

/** Not whole numbers (some of which Number() read: 1e3, 0x10, +5), or below or past every range. */
const INT = ['1.5', '1e3', '0x10', '10abc', '+5', '1_000', ' ', '-1', '99999999999', 'huge'];
const BOOL = ['maybe', 'ture', '2', 'enabled', ' '];
/** Not sizes as `bytes` reads them strictly (it read `10abc` as 10 and `huge` as no limit). */
const SIZE = ['huge', '-1mb', '0', '10abc', '1e6', '1 megabyte', '1mb1', '0x100000', '1,5mb', ' '];
const FOLDER = [' ', 'media\ttmp', 'line\nbreak'];
const HOST = ['not a host', 'a..b', 'host:80', '-bad.example', 'exa_mple', ' '];
const WEB_URL = [
  'api.example.com',
  'ftp://example.com',
  'https://',
  'https://user:pw@example.com',
  'https://example.com/?q=1',
  'https://example.com/#top',
  'https://exa mple.com',
  ' ',
];
/** A shape without a key: base64 of random bytes. */
const NOT_A_KEY = randomBytes(60).toString('base64');
/** A key, but P-384: SendGrid's are P-256. */
const P384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64');

/** The name of a setting, of any class. */
type SettingName = { [K in keyof Configs]: keyof Configs[K] }[keyof Configs];

/** Values each setting must refuse; a setting missing here fails the first test. */
const WRONG: Record<SettingName, string[]> = {
  NODE_ENV: ['staging', 'Production', ' '],
  PORT: [...INT, '65536'],
  HOST,
  PUBLIC_BASE_URL: WEB_URL,
  DATABASE_URL: ['huge', 'mysql://u@db/sitebase', 'postgres://', 'postgres:///sitebase', 'postgres://db:99999/x'],
  EMBEDDED_PG_DIR: FOLDER,
  EMBEDDED_PG_PORT: [...INT, '0', '65536'],
  DB_POOL_SIZE: [...INT, '0', '201'],
  WORKERS: [...INT, '65'],
  PUBLIC_CACHE_MAX_AGE_SECONDS: [...INT, '86401'],
  MIGRATIONS_RUN: BOOL,
  BOOTSTRAP_ENABLED: BOOL,
  BOOTSTRAP_API_KEY: [
    'sb_live_short',
    `sk_live_${'a'.repeat(32)}`,
    `sb_live_${'a'.repeat(31)}`,
    `sb_live_${'-'.repeat(32)}`,
  ],
  BOOTSTRAP_SITE: ['Demo Site', '-demo', 'a'.repeat(64), 'démo'],
  LOG_LEVEL: ['verbose', 'INFO', ' '],
  LOG_FORMAT: ['text', ' '],
  BODY_LIMIT: [...SIZE, '512', '200mb', '1tb'],
  TRUST_PROXY: [
    'yes',
    'True',
    '1.5',
    '101',
    '-1',
    '10.0.0.0/33',
    '10.0.0.0/0',
    '10.1',
    '0x7f.1',
    'localhost',
    'loopback,',
    '10.0.0.1,,10.0.0.2',
    '10.0.0.0/255.0.255.0',
    '::1/129',
    ' ',
  ],
  DOCS_ENABLED: BOOL,
  SLOW_REQUEST_MS: [...INT, '3600001'],
  FAST_PATHS: BOOL,
  METRICS_TOKEN: ['short', 'sixteen chars with spaces', ' '],
  METRICS_PORT: [...INT, '65536'],
  METRICS_HOST: HOST,
  METRICS_CACHE_MS: [...INT, '60001'],
  RATE_LIMIT_TTL_MS: [...INT, '999'],
  RATE_LIMIT_PUBLIC_MAX: [...INT, '0'],
  RATE_LIMIT_KEY_MAX: INT,
  PUBLISHABLE_KEY_RATE_PER_MINUTE: [...INT, '0'],
  RATE_LIMIT_SESSION_MAX: INT,
  RATE_LIMIT_RENDER_MAX: INT,
  RATE_LIMIT_RENDER_CONCURRENCY: [...INT, '1001'],
  RATE_LIMIT_OUTBOUND_MAX: INT,
  RATE_LIMIT_OUTBOUND_CONCURRENCY: [...INT, '1001'],
  RATE_LIMIT_IMPORT_MAX: INT,
  RATE_LIMIT_IMPORT_CONCURRENCY: [...INT, '1001'],
  RATE_LIMIT_UPLOAD_MAX: INT,
  RATE_LIMIT_UPLOAD_CONCURRENCY: [...INT, '1001'],
  API_KEY_CACHE_TTL_MS: INT,
  ACCOUNT_DELETION_GRACE_SECONDS: INT,
  IDEMPOTENCY_TTL_SECONDS: [...INT, '59'],
  JOBS_ENABLED: BOOL,
  OUTBOX_POLL_MS: [...INT, '99'],
  OUTBOX_MAX_ATTEMPTS: [...INT, '0', '101'],
  OUTBOX_RETENTION_DAYS: [...INT, '0', '3651'],
  RETENTION_BATCH_SIZE: [...INT, '0', '100001'],
  RETENTION_MAX_BATCHES: [...INT, '0', '10001'],
  JOBS_POLL_SECONDS: [...INT, '0', '101'],
  SHUTDOWN_TIMEOUT_MS: [...INT, '999'],
  MEDIA_STORAGE: ['gcs', 'S3', ' '],
  MEDIA_LOCAL_DIR: FOLDER,
  MEDIA_PUBLIC_PATH: ['files', '/Files', '/files/', '//files', ' '],
  MEDIA_TMP_DIR: FOLDER,
  MEDIA_MAX_BYTES: [...SIZE, '6gb'],
  MEDIA_MAX_FILES: [...INT, '0', '101'],
  MEDIA_THUMBNAIL_WIDTHS: [
    '150,9000',
    '150,,600',
    '150,',
    'huge',
    '150.5',
    '15',
    '1e3',
    Array(11).fill('100').join(','),
  ],
  MEDIA_MAX_PIXELS: [...INT, '0'],
  MEDIA_PROCESSING_CONCURRENCY: [...INT, '0', '65'],
  S3_BUCKET: ['My Bucket', 'ab', 'bucket_name', ' '],
  S3_REGION: ['US East', 'us_east_1', ' '],
  S3_ENDPOINT: WEB_URL,
  S3_ACCESS_KEY_ID: ['has space', ' '],
  S3_SECRET_ACCESS_KEY: ['has space', ' '],
  S3_FORCE_PATH_STYLE: BOOL,
  S3_PUBLIC_URL: WEB_URL,
  CONTENT_CACHE_TTL_MS: [...INT, '3600001'],
  USER_OTP_TTL_SECONDS: [...INT, '59', '86401'],
  USER_OTP_MAX_ATTEMPTS: [...INT, '0', '21'],
  USER_OTP_RESEND_SECONDS: [...INT, '3601'],
  USER_OTP_EMAIL_HOURLY_LIMIT: [...INT, '0'],
  USER_OTP_EMAIL_DAILY_LIMIT: [...INT, '0'],
  USER_OTP_IP_HOURLY_LIMIT: [...INT, '0'],
  NEWSLETTER_CONFIRM_TTL_HOURS: [...INT, '0', '721'],
  NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT: [...INT, '0'],
  NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT: [...INT, '0'],
  NEWSLETTER_IMPORT_MAX_BYTES: [...SIZE, '11gb'],
  NEWSLETTER_IMPORT_SYNC_ROWS: INT,
  NEWSLETTER_IMPORT_BATCH_ROWS: [...INT, '99', '50001'],
  NEWSLETTER_IMPORT_WORKERS: [...INT, '0', '9'],
  NEWSLETTER_SEND_BATCH_SIZE: [...INT, '0', '5001'],
  NEWSLETTER_SEND_RATE_PER_MINUTE: [...INT, '0'],
  NEWSLETTER_ACCOUNT_BACKLOG_MAX: INT,
  NEWSLETTER_ACCOUNT_IMPORTS_MAX: [...INT, '1001'],
  NEWSLETTER_TRACKING_BATCH: [...INT, '0', '10001'],
  NEWSLETTER_TRACKING_FLUSH_MS: [...INT, '1001'],
  NEWSLETTER_TRACKING_RETENTION_DAYS: [...INT, '0', '3651'],
  NEWSLETTER_MACHINE_WINDOW_SECONDS: [...INT, '3601'],
  USER_SESSION_TTL_SECONDS: [...INT, '59'],
  USER_SESSION_CACHE_TTL_MS: [...INT, '3600001'],
  USER_SESSION_RETENTION_DAYS: [...INT, '0', '3651'],
  USER_DELETION_GRACE_SECONDS: INT,
  CATALOG_CACHE_TTL_MS: [...INT, '3600001'],
  SECRETS_ENCRYPTION_KEY: ['short', 'a'.repeat(63), 'g'.repeat(64), Buffer.alloc(31).toString('base64'), ' '],
  STRIPE_API_BASE: WEB_URL,
  STRIPE_TIMEOUT_MS: [...INT, '999', '120001'],
  STRIPE_MAX_NETWORK_RETRIES: [...INT, '6'],
  STRIPE_WEBHOOK_TOLERANCE_SECONDS: [...INT, '9', '3601'],
  PAYMENT_EVENT_RETENTION_DAYS: [...INT, '30', '3651'],
  STRIPE_TEST_SECRET_KEY: [`sk_live_${'a'.repeat(24)}`, 'sk_test_short', `pk_test_${'a'.repeat(24)}`, ' '],
  STRIPE_TEST_WEBHOOK_SECRET: ['whsec_', `whsec_${'a'.repeat(10)}`, `sk_test_${'a'.repeat(24)}`, ' '],
  FULFILLMENT_SECRET_GRACE_SECONDS: INT,
  SMTP_URL: ['http://mailer:s3cret@mail.example.com', 'smtp://', 'mail.example.com:587', 'smtp://mail:99999', ' '],
  MAIL_FROM: ['no-reply', 'a@b.test, c@d.test', '<a@b.test>, <c@d.test>', 'Name <no-reply>', ' '],
  SMTP_POOL_SIZE: [...INT, '0', '101'],
  EMAIL_RETRY_LIMIT: [...INT, '51'],
  EMAIL_RETRY_DELAY_SECONDS: [...INT, '0', '86401'],
  EMAIL_BODY_RETENTION_DAYS: [...INT, '-1', '3651'],
  EMAIL_MESSAGE_RETENTION_DAYS: [...INT, '0', '3651'],
  BOUNCE_DOMAIN: [
    'Bounces.Example.com',
    'localhost',
    'bounces..example.com',
    'bounces_x.example.com',
    '-a.example.com',
  ],
  BOUNCE_SMTP_PORT: [...INT, '65536'],
  BOUNCE_SMTP_HOST: HOST,
  BOUNCE_SMTP_MAX_BYTES: [...SIZE, '9kb', '51mb'],
  BOUNCE_SMTP_RATE_PER_MINUTE: [...INT, '1000001'],
  BOUNCE_SOFT_LIMIT: [...INT, '0', '101'],
  BOUNCE_SOFT_WINDOW_DAYS: [...INT, '0', '366'],
  MAILGUN_WEBHOOK_SIGNING_KEY: ['key-short', 'a key with spaces in it', ' '],
  POSTMARK_WEBHOOK_TOKEN: ['x'.repeat(23), `${'x'.repeat(12)} ${'x'.repeat(12)}`, ' '],
  SENDGRID_WEBHOOK_PUBLIC_KEY: ['k', NOT_A_KEY, P384, ' '],
  SES_SNS_TOPIC_ARNS: [
    'ses-feedback',
    'arn:aws:sqs:eu-west-1:123456789012:q',
    'arn:aws:sns:eu-west-1:12345:t',
    'arn:aws:sns:eu-west-1:123456789012:t,',
    'arn:aws:sns:eu-west-1:123456789012:*',
    ' ',
  ],
  WEBHOOKS_ALLOW_PRIVATE: BOOL,
  WEBHOOKS_ALLOW_HTTP: BOOL,
  WEBHOOK_TIMEOUT_MS: [...INT, '99', '120001'],
  WEBHOOK_RETRY_SCHEDULE: ['5,-1', '5,,60', '1e3', 'never', '5,604801', Array(51).fill('5').join(',')],
  WEBHOOK_DISABLE_AFTER_SECONDS: [...INT, '0'],
  WEBHOOK_SECRET_GRACE_SECONDS: INT,
  WEBHOOK_CONCURRENCY: [...INT, '0', '257'],
  WEBHOOK_LOG_RETENTION_DAYS: [...INT, '0', '3651'],
  SENDER_DNS_TIMEOUT_MS: [...INT, '99', '30001'],
};

/** Never printed, not even when wrong. */
const SECRETS = new Set([
  'DATABASE_URL',
  'SMTP_URL',
  'BOOTSTRAP_API_KEY',
  'METRICS_TOKEN',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'MAILGUN_WEBHOOK_SIGNING_KEY',
  'POSTMARK_WEBHOOK_TOKEN',
  'SECRETS_ENCRYPTION_KEY',
  'STRIPE_TEST_SECRET_KEY',
  'STRIPE_TEST_WEBHOOK_SECRET',
]);

describe('every setting is read strictly', () => {
  it('has wrong values for every setting of every class (a new setting needs its own)', () => {
    expect(Object.keys(WRONG).sort()).toEqual([...CONFIG_KEYS].sort());
  });

  const cases = Object.entries(WRONG).flatMap(([key, values]) => values.map((value) => [key, value] as const));
  it.each(cases)('%s=%j: one line naming the setting', (key, value) => {
    const line = printed({ [key]: value });
    const cut = value.length > 100 ? `${value.slice(0, 100)}…` : value;
    const shown = SECRETS.has(key) ? '(value hidden)' : JSON.stringify(cut);
    expect(line?.split('\n')).toEqual([expect.stringMatching(/^Sitebase could not start: Invalid setting /)]);
    expect(line!.startsWith(`Sitebase could not start: Invalid setting ${key}=${shown}: use `)).toBe(true);
  });

  it('a secret is named, never shown', () => {
    const line = printed({ SMTP_URL: 'http://mailer:hunter2@mail.example.com', METRICS_TOKEN: 'hunter2' });
    expect(line).not.toContain('hunter2');
    expect(line?.split('\n')).toHaveLength(2);
  });

  it('a long wrong value is cut, on one line', () => {
    const line = printed({ BODY_LIMIT: `${'9'.repeat(1000)}\nmb` });
    expect(line?.split('\n')).toHaveLength(1);
    expect(line!.length).toBeLessThan(400);
  });
});
