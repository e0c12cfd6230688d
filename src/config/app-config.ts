import { plainToInstance, Transform } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateIf,
  validateSync,
} from 'class-validator';
import { trimTrailing } from '../common/input/trim-trailing';
import { StartupError } from '../startup-errors';
import { describeSettingError } from './setting-errors';

/** An SNS topic's ARN (aws, aws-cn, aws-us-gov partitions; FIFO topics end in `.fifo`). */
const SNS_TOPIC_ARN = 'arn:aws(?:-[a-z]+)*:sns:[a-z0-9-]{3,40}:\\d{12}:[A-Za-z0-9_-]{1,256}(?:\\.fifo)?';

/** The topics of SES_SNS_TOPIC_ARNS. */
export function snsTopicArns(value: string): Set<string> {
  return new Set(
    value
      .split(',')
      .map((arn) => arn.trim())
      .filter(Boolean),
  );
}

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];
/** Anything else is left as is, so @IsBoolean rejects it: a typo must not switch a feature off. */
const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : value;
};
const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
/** "150,600,1200" -> [150, 600, 1200]; "none" -> []. */
const toIntList = ({ value }: { value: unknown }) =>
  typeof value !== 'string'
    ? value
    : value.trim() === 'none'
      ? []
      : value.split(',').map((v) => (/^\s*\d+\s*$/.test(v) ? Number(v) : v));

/**
 * Every setting the server reads, with its default. `.env.example` documents the same list;
 * the env-example spec keeps the two in step.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test']) NODE_ENV = 'development';
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT = 3000;
  @IsString() HOST = '0.0.0.0';
  /**
   * Public origin of every absolute URL the server writes (Location headers, media links, and
   * the confirmation, unsubscribe and tracking links of mail), through PublicUrls. Unset: it
   * follows PORT, http://localhost:<PORT>.
   */
  @ValidateIf((c: AppConfig) => c.PUBLIC_BASE_URL !== '')
  @Matches(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, {
    message: 'PUBLIC_BASE_URL must be an http(s) URL such as https://api.example.com',
  })
  PUBLIC_BASE_URL = '';

  @IsOptional() @IsString() DATABASE_URL?: string;
  @IsString() EMBEDDED_PG_DIR = '.data/postgres';
  @Transform(toInt) @IsInt() @Min(1) @Max(65535) EMBEDDED_PG_PORT = 54329;
  @Transform(toInt) @IsInt() @Min(1) @Max(200) DB_POOL_SIZE = 10;
  /**
   * Server processes (node cluster) sharing the port: 1 (the default) runs one; 0 one per core.
   * Each has its own pool of DB_POOL_SIZE connections (docs/performance.md, "Every core").
   */
  @Transform(toInt) @IsInt() @Min(0) @Max(64) WORKERS = 1;
  /**
   * max-age of anonymous reads of published data (`Cache-Control: public`); 0: `no-cache`, so a
   * browser or CDN keeps them but revalidates each time (a 304 when nothing changed).
   */
  @Transform(toInt) @IsInt() @Min(0) @Max(86_400) PUBLIC_CACHE_MAX_AGE_SECONDS = 0;
  @Transform(toBool) @IsBoolean() MIGRATIONS_RUN = true;

  @Transform(toBool) @IsBoolean() BOOTSTRAP_ENABLED = true;
  @IsOptional()
  @Matches(/^sb_(live|test)_[A-Za-z0-9]{32,}$/, { message: 'BOOTSTRAP_API_KEY must look like sb_live_<32+ base62>' })
  BOOTSTRAP_API_KEY?: string;
  @Matches(/^[a-z0-9][a-z0-9-]{0,62}$/, {
    message:
      'BOOTSTRAP_SITE must be a site name: lowercase letters, digits and dashes (at most 63), not starting with a dash',
  })
  BOOTSTRAP_SITE = 'demo';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL = 'info';
  /** auto: readable lines when stdout is a terminal, JSON lines otherwise. */
  @IsIn(['auto', 'json', 'pretty']) LOG_FORMAT = 'auto';
  @IsString() BODY_LIMIT = '1mb';
  @IsString() TRUST_PROXY = 'false';
  @Transform(toBool) @IsBoolean() DOCS_ENABLED = true;
  /** Requests slower than this are logged at warn with their route (docs/operations.md); 0: off. */
  @Transform(toInt) @IsInt() @Min(0) SLOW_REQUEST_MS = 1000;
  /**
   * The fenced fast paths of src/common/internals (the params/query memo); false: the plain path
   * everywhere, to rule them out when something looks wrong (docs/performance.md, "Fenced fast paths").
   */
  @Transform(toBool) @IsBoolean() FAST_PATHS = true;

  // Metrics (docs/operations.md). Off unless a token or a port is set.
  /** Bearer token that GET /metrics on the main port requires; empty: no /metrics there. */
  @ValidateIf((c: AppConfig) => c.METRICS_TOKEN !== '')
  @Matches(/^[\x21-\x7e]{16,}$/, { message: 'METRICS_TOKEN must be 16 or more printable characters without spaces' })
  METRICS_TOKEN = '';
  /** A separate port serving GET /metrics without a token (bind it to a private address); 0: none. */
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) METRICS_PORT = 0;
  @IsString() @IsNotEmpty() METRICS_HOST = '127.0.0.1';
  /** How long the gauges read from the database (queues, outbox, campaigns) are reused between scrapes. */
  @Transform(toInt) @IsInt() @Min(0) @Max(60_000) METRICS_CACHE_MS = 5000;

  @Transform(toInt) @IsInt() @Min(1000) RATE_LIMIT_TTL_MS = 60_000;
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_PUBLIC_MAX = 120;
  /** Per API key, every route, per RATE_LIMIT_TTL_MS; 0: not limited (docs/foundation.md, "Fair share"). */
  @Transform(toInt) @IsInt() @Min(0) RATE_LIMIT_KEY_MAX = 10_000;
  /** A publishable key's requests a minute, every holder together, unless the key sets its own. */
  @Transform(toInt) @IsInt() @Min(1) PUBLISHABLE_KEY_RATE_PER_MINUTE = 6000;
  /** Per site-user session, every route, per RATE_LIMIT_TTL_MS; 0: not limited. */
  @Transform(toInt) @IsInt() @Min(0) RATE_LIMIT_SESSION_MAX = 1200;
  // Budgets per account of the routes that declare a cost (src/common/rate-limit/route-costs.ts):
  // requests per RATE_LIMIT_TTL_MS (every instance together) and requests in flight at once
  // (per instance); 0: that budget is off.
  @Transform(toInt) @IsInt() @Min(0) RATE_LIMIT_RENDER_MAX = 600;
  @Transform(toInt) @IsInt() @Min(0) @Max(1000) RATE_LIMIT_RENDER_CONCURRENCY = 4;
  @Transform(toInt) @IsInt() @Min(0) RATE_LIMIT_OUTBOUND_MAX = 120;
  @Transform(toInt) @IsInt() @Min(0) @Max(1000) RATE_LIMIT_OUTBOUND_CONCURRENCY = 4;
  @Transform(toInt) @IsInt() @Min(0) RATE_LIMIT_IMPORT_MAX = 120;
  @Transform(toInt) @IsInt() @Min(0) @Max(1000) RATE_LIMIT_IMPORT_CONCURRENCY = 2;
  @Transform(toInt) @IsInt() @Min(0) RATE_LIMIT_UPLOAD_MAX = 600;
  @Transform(toInt) @IsInt() @Min(0) @Max(1000) RATE_LIMIT_UPLOAD_CONCURRENCY = 8;
  /** How long a verified key is trusted from memory; changes reach every instance at commit. 0: off. */
  @Transform(toInt) @IsInt() @Min(0) API_KEY_CACHE_TTL_MS = 60_000;

  @Transform(toInt) @IsInt() @Min(0) ACCOUNT_DELETION_GRACE_SECONDS = 7 * 24 * 3600;
  @Transform(toInt) @IsInt() @Min(60) IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

  @Transform(toBool) @IsBoolean() JOBS_ENABLED = true;
  @Transform(toInt) @IsInt() @Min(100) OUTBOX_POLL_MS = 1000;
  /** Failed deliveries of one outbox event to its subscribers before it is parked (docs/foundation.md). */
  @Transform(toInt) @IsInt() @Min(1) @Max(100) OUTBOX_MAX_ATTEMPTS = 10;
  @Transform(toInt) @IsInt() @Min(1) @Max(100) JOBS_POLL_SECONDS = 2;
  @Transform(toInt) @IsInt() @Min(1000) SHUTDOWN_TIMEOUT_MS = 10_000;

  // Media (docs/media.md)
  @IsIn(['local', 's3']) MEDIA_STORAGE = 'local';
  @IsString() @IsNotEmpty() MEDIA_LOCAL_DIR = '.data/media';
  @Matches(/^(\/[a-z0-9_-]+)+$/, { message: 'MEDIA_PUBLIC_PATH must look like /files' }) MEDIA_PUBLIC_PATH = '/files';
  /** Spool folder for uploads in progress; empty: <MEDIA_LOCAL_DIR>/.tmp. */
  @IsString() MEDIA_TMP_DIR = '';
  @Transform(toInt) @IsInt() @Min(1) MEDIA_MAX_BYTES = 25 * 1024 * 1024;
  @Transform(toInt) @IsInt() @Min(1) @Max(100) MEDIA_MAX_FILES = 10;
  @Transform(toIntList)
  @IsArray()
  @IsInt({ each: true })
  @Min(16, { each: true })
  @Max(8192, { each: true })
  MEDIA_THUMBNAIL_WIDTHS: number[] = [150, 600, 1200];
  @Transform(toInt) @IsInt() @Min(1) MEDIA_MAX_PIXELS = 50_000_000;
  @Transform(toInt) @IsInt() @Min(1) @Max(64) MEDIA_PROCESSING_CONCURRENCY = 2;
  @ValidateIf((c: AppConfig) => c.MEDIA_STORAGE === 's3')
  @IsString()
  @IsNotEmpty({ message: 'S3_BUCKET is required when MEDIA_STORAGE=s3' })
  S3_BUCKET = '';
  @IsString() S3_REGION = 'us-east-1';
  /** Empty: AWS itself; set for MinIO, R2 and other S3-compatible servers. */
  @IsString() S3_ENDPOINT = '';
  @IsString() S3_ACCESS_KEY_ID = '';
  @IsString() S3_SECRET_ACCESS_KEY = '';
  @Transform(toBool) @IsBoolean() S3_FORCE_PATH_STYLE = false;
  /** Public origin of the bucket (CDN); empty: files are streamed through MEDIA_PUBLIC_PATH. */
  @IsString() S3_PUBLIC_URL = '';

  // Content (docs/content.md)
  /** How long an instance serves anonymous content reads from memory; 0 turns the cache off. */
  @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) CONTENT_CACHE_TTL_MS = 5000;

  // Site users (docs/users.md)
  /** How long a one-time sign-in code works. */
  @Transform(toInt) @IsInt() @Min(60) @Max(86_400) USER_OTP_TTL_SECONDS = 600;
  /** Wrong tries a code allows; the next one fails even with the right code. */
  @Transform(toInt) @IsInt() @Min(1) @Max(20) USER_OTP_MAX_ATTEMPTS = 5;
  /** A new code for the same address waits this long after the last one. */
  @Transform(toInt) @IsInt() @Min(0) @Max(3600) USER_OTP_RESEND_SECONDS = 60;
  /**
   * Codes one address may be sent in an hour, sign-in and email change together (shared by
   * instances); also the email changes one user may ask for in an hour.
   */
  @Transform(toInt) @IsInt() @Min(1) USER_OTP_EMAIL_HOURLY_LIMIT = 10;
  /** Codes one address may be sent in a day; a verified owner is told once when it is reached. */
  @Transform(toInt) @IsInt() @Min(1) USER_OTP_EMAIL_DAILY_LIMIT = 20;
  /** Code requests and sign-in tries one client IP may make in an hour (shared by instances). */
  @Transform(toInt) @IsInt() @Min(1) USER_OTP_IP_HOURLY_LIMIT = 60;

  // Newsletter (docs/newsletter.md)
  /** A confirmation link works this many hours after it was mailed (and once). */
  @Transform(toInt) @IsInt() @Min(1) @Max(24 * 30) NEWSLETTER_CONFIRM_TTL_HOURS = 48;
  /** Public subscribes per client IP and site, per hour (429 past it). */
  @Transform(toInt) @IsInt() @Min(1) NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT = 30;
  /** Confirmation mails per address and site, per hour; past it the answer is the same and nothing is sent. */
  @Transform(toInt) @IsInt() @Min(1) NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT = 3;
  /** An import file may be at most this many bytes. */
  @Transform(toInt) @IsInt() @Min(1024) NEWSLETTER_IMPORT_MAX_BYTES = 256 * 1024 * 1024;
  /** Imports of at most this many rows answer at once (200); larger ones are queued (202). */
  @Transform(toInt) @IsInt() @Min(0) NEWSLETTER_IMPORT_SYNC_ROWS = 1000;
  /** Rows upserted per statement and transaction by an import. */
  @Transform(toInt) @IsInt() @Min(100) @Max(50_000) NEWSLETTER_IMPORT_BATCH_ROWS = 5000;
  /** Batches an import upserts side by side (each a database connection). */
  @Transform(toInt) @IsInt() @Min(1) @Max(8) NEWSLETTER_IMPORT_WORKERS = 2;
  /** Campaign recipients handed to the email module per transaction of a send. */
  @Transform(toInt) @IsInt() @Min(1) @Max(5000) NEWSLETTER_SEND_BATCH_SIZE = 500;
  /** A site's campaign send rate (mails a minute) unless its `newsletter.sendRatePerMinute` says otherwise. */
  @Transform(toInt) @IsInt() @Min(1) NEWSLETTER_SEND_RATE_PER_MINUTE = 60_000;
  /**
   * Fair share of the mail queue: a campaign send hands over no more copies while its ACCOUNT has
   * this many mails recorded and not yet sent (every site, every campaign); it resumes as they
   * drain, behind the other accounts' work. 0: no bound (docs/newsletter.md, "Delivery").
   */
  @Transform(toInt) @IsInt() @Min(0) NEWSLETTER_ACCOUNT_BACKLOG_MAX = 5000;
  /** Imports an account may have queued or running at once (the next is a 429); 0: no bound. */
  @Transform(toInt) @IsInt() @Min(0) NEWSLETTER_ACCOUNT_IMPORTS_MAX = 3;
  /** Tracking events written per statement at most, and the longest an event waits for its batch (ms). */
  @Transform(toInt) @IsInt() @Min(1) @Max(10_000) NEWSLETTER_TRACKING_BATCH = 500;
  @Transform(toInt) @IsInt() @Min(0) @Max(1000) NEWSLETTER_TRACKING_FLUSH_MS = 5;
  /** Opens and clicks this soon after a copy was delivered are flagged as a machine's. */
  @Transform(toInt) @IsInt() @Min(0) @Max(3600) NEWSLETTER_MACHINE_WINDOW_SECONDS = 5;
  /** How long a session lasts. */
  @Transform(toInt) @IsInt() @Min(60) USER_SESSION_TTL_SECONDS = 30 * 24 * 3600;
  /** How long an instance keeps a verified session (with its user) in memory; 0: never. */
  @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) USER_SESSION_CACHE_TTL_MS = 60_000;
  /** Seconds between a user's erasure request and the erasure; 0: at once. */
  @Transform(toInt) @IsInt() @Min(0) USER_DELETION_GRACE_SECONDS = 7 * 24 * 3600;

  // Catalog (docs/catalog.md)
  /** How long an instance serves anonymous product and category reads from memory; 0 turns it off. */
  @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) CATALOG_CACHE_TTL_MS = 5000;

  // Orders (docs/orders.md)
  /** After a rotation of a site's fulfillment secret, the previous one keeps verifying notifications this long. */
  @Transform(toInt) @IsInt() @Min(0) FULFILLMENT_SECRET_GRACE_SECONDS = 24 * 3600;

  // Email (docs/email.md)
  /** smtp://user:pass@host:587 or smtps://…:465; empty: messages are recorded and logged, not sent. */
  @ValidateIf((c: AppConfig) => c.SMTP_URL !== '')
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL = '';
  /**
   * The envelope sender of all mail, and the From of sites whose address is not at a domain their
   * account verified (docs/email.md, "Sender domains"): an address, or `Name <address>`.
   */
  @Matches(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, {
    message: 'MAIL_FROM must be an address or "Name <address>"',
  })
  MAIL_FROM = 'Sitebase <no-reply@localhost>';
  /** Connections the pooled SMTP transport keeps open. */
  @Transform(toInt) @IsInt() @Min(1) @Max(100) SMTP_POOL_SIZE = 5;
  /** Retries of a message the SMTP server refuses for now (4xx, connection errors), with backoff. */
  @Transform(toInt) @IsInt() @Min(0) @Max(50) EMAIL_RETRY_LIMIT = 8;
  /** First retry delay in seconds; each later one doubles it. */
  @Transform(toInt) @IsInt() @Min(1) EMAIL_RETRY_DELAY_SECONDS = 30;

  // Bounces and complaints (docs/deliverability.md)
  /**
   * The domain of the per-message envelope sender (VERP: `bounces+<token>@<BOUNCE_DOMAIN>`); its MX
   * must reach the bounce listener or a mailbox forwarded to it. Empty: every message's envelope
   * sender is MAIL_FROM's address, as before.
   */
  @ValidateIf((c: AppConfig) => c.BOUNCE_DOMAIN !== '' || c.BOUNCE_SMTP_PORT !== 0)
  @Matches(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/, {
    message:
      'BOUNCE_DOMAIN must be a lower-case host name such as bounces.example.com (required with BOUNCE_SMTP_PORT)',
  })
  BOUNCE_DOMAIN = '';
  /** The port of the SMTP listener that receives bounces and complaints (DSN, ARF); 0: no listener. */
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) BOUNCE_SMTP_PORT = 0;
  @IsString() @IsNotEmpty() BOUNCE_SMTP_HOST = '0.0.0.0';
  /** The largest report the listener accepts (bytes); a DSN carries at most the original's headers or a part of it. */
  @Transform(toInt) @IsInt() @Min(10_000) @Max(50 * 1024 * 1024) BOUNCE_SMTP_MAX_BYTES = 2 * 1024 * 1024;
  /** Messages one client (remote address) may send the listener per minute; past it a 421. 0: no limit. */
  @Transform(toInt) @IsInt() @Min(0) @Max(1_000_000) BOUNCE_SMTP_RATE_PER_MINUTE = 60;
  /** Soft bounces of an address within BOUNCE_SOFT_WINDOW_DAYS that mark it `bounced`, unless its site says otherwise. */
  @Transform(toInt) @IsInt() @Min(1) @Max(100) BOUNCE_SOFT_LIMIT = 3;
  @Transform(toInt) @IsInt() @Min(1) @Max(365) BOUNCE_SOFT_WINDOW_DAYS = 7;
  /** Mailgun's webhook signing key (its events route answers 404 while empty). */
  @IsString() MAILGUN_WEBHOOK_SIGNING_KEY = '';
  /** The token Postmark's webhooks send in `x-sitebase-webhook-token` (its route answers 404 while empty). */
  @ValidateIf((c: AppConfig) => c.POSTMARK_WEBHOOK_TOKEN !== '')
  @MinLength(24, { message: 'POSTMARK_WEBHOOK_TOKEN must be at least 24 characters (a random secret)' })
  POSTMARK_WEBHOOK_TOKEN = '';
  /** SendGrid's Signed Event Webhook verification key: base64 DER (SPKI) of its ECDSA P-256 public key (its route answers 404 while empty). */
  @ValidateIf((c: AppConfig) => c.SENDGRID_WEBHOOK_PUBLIC_KEY !== '')
  @Matches(/^[A-Za-z0-9+/]{40,400}={0,2}$/, {
    message: 'SENDGRID_WEBHOOK_PUBLIC_KEY must be the base64 verification key SendGrid shows (DER SPKI, ECDSA P-256)',
  })
  SENDGRID_WEBHOOK_PUBLIC_KEY = '';
  /**
   * The SNS topics (ARNs, comma-separated) Amazon SES publishes bounces and complaints to: a
   * signed message of any other topic is refused. Its route answers 404 while empty.
   */
  @ValidateIf((c: AppConfig) => c.SES_SNS_TOPIC_ARNS !== '')
  @Matches(new RegExp(`^\\s*${SNS_TOPIC_ARN}(?:\\s*,\\s*${SNS_TOPIC_ARN})*\\s*$`), {
    message: 'SES_SNS_TOPIC_ARNS must be SNS topic ARNs separated by commas (arn:aws:sns:<region>:<account>:<topic>)',
  })
  SES_SNS_TOPIC_ARNS = '';

  // Webhooks (docs/webhooks.md)
  /** Allow endpoints on private, loopback and link-local addresses (tests, private networks). */
  @Transform(toBool) @IsBoolean() WEBHOOKS_ALLOW_PRIVATE = false;
  /** Allow http:// endpoints; otherwise only https://. */
  @Transform(toBool) @IsBoolean() WEBHOOKS_ALLOW_HTTP = false;
  /** How long one delivery attempt may take, connection and response together. */
  @Transform(toInt) @IsInt() @Min(100) @Max(120_000) WEBHOOK_TIMEOUT_MS = 10_000;
  /**
   * Seconds to wait before each retry of a failed delivery (each gets ±20 % jitter); after the
   * last, the delivery is given up. The default spreads 10 attempts over about a day.
   */
  @Transform(toIntList)
  @IsArray()
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(7 * 24 * 3600, { each: true })
  WEBHOOK_RETRY_SCHEDULE: number[] = [5, 60, 300, 1800, 3600, 7200, 14400, 28800, 28800];
  /** An endpoint failing without a success for this long is disabled (webhook.endpoint_disabled). */
  @Transform(toInt) @IsInt() @Min(1) WEBHOOK_DISABLE_AFTER_SECONDS = 5 * 24 * 3600;
  /** After a rotation, the previous secret keeps signing (a second signature) this long. */
  @Transform(toInt) @IsInt() @Min(0) WEBHOOK_SECRET_GRACE_SECONDS = 24 * 3600;
  /** Endpoints one instance delivers to at once (each endpoint's deliveries go one at a time, in order). */
  @Transform(toInt) @IsInt() @Min(1) @Max(256) WEBHOOK_CONCURRENCY = 8;
  /** Finished deliveries and their attempts are kept this many days. */
  @Transform(toInt) @IsInt() @Min(1) WEBHOOK_LOG_RETENTION_DAYS = 30;

  // Sender domains (docs/email.md, "Sender domains")
  /** How long verifying a sender domain waits for each DNS TXT lookup before answering 503. */
  @Transform(toInt) @IsInt() @Min(100) @Max(30_000) SENDER_DNS_TIMEOUT_MS = 5000;
}

export const CONFIG_KEYS = Object.keys(new AppConfig()).concat('DATABASE_URL', 'BOOTSTRAP_API_KEY');

/**
 * Reads settings from `env` (defaults for what is unset) and fails at boot on bad values: one
 * line per wrong setting, naming it, its value and what it accepts.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const raw: Record<string, string> = {};
  for (const key of CONFIG_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const config = plainToInstance(AppConfig, raw);
  const errors = validateSync(config, { whitelist: true });
  if (errors.length > 0) throw new StartupError(errors.map((e) => describeSettingError(config, e, raw)).join('\n'));
  if (!config.PUBLIC_BASE_URL) config.PUBLIC_BASE_URL = `http://localhost:${config.PORT}`;
  config.PUBLIC_BASE_URL = trimTrailing(config.PUBLIC_BASE_URL, '/');
  return config;
}
