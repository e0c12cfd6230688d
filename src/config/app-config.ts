import { trimTrailing } from '../common/input/trim-trailing';
import { StartupError } from '../startup-errors';
import { readSettings, Setting, settingsOf } from './setting';
import {
  bool,
  folder,
  int,
  intList,
  listenHost,
  oneOf,
  secret,
  size,
  token,
  TrustProxy,
  trustProxy,
  webUrl,
} from './setting-kinds';
import {
  apiKey,
  bucketName,
  databaseUrl,
  mailbox,
  mailDomain,
  s3Region,
  secretsKey,
  sendgridPublicKey,
  siteName,
  smtpUrl,
  snsTopicArns,
  stripeKey,
  stripeWebhookSecret,
  urlPath,
} from './setting-shapes';

/** Counts per window (requests, mails): far past any real need, and within PostgreSQL's integer. */
const COUNT_MAX = 1_000_000_000;
const DAY_SECONDS = 86_400;
const YEAR_SECONDS = 365 * DAY_SECONDS;

/**
 * Every setting the server reads, with its default, each declared once with @Setting: its kind
 * (setting-kinds.ts) reads the variable strictly (type, bounds) and words its one-line error.
 * `.env.example` documents the same list; the env-example spec keeps the two in step, and
 * settings.spec.ts feeds every one a wrong value.
 */
export class AppConfig {
  @Setting(oneOf(['development', 'production', 'test'])) NODE_ENV: 'development' | 'production' | 'test' =
    'development';
  @Setting(int(0, 65535)) PORT = 3000;
  @Setting(listenHost()) HOST = '0.0.0.0';
  /**
   * Public origin of every absolute URL the server writes (Location headers, media links, and
   * the confirmation, unsubscribe and tracking links of mail), through PublicUrls. Unset: it
   * follows PORT, http://localhost:<PORT>.
   */
  @Setting(webUrl('https://api.example.com')) PUBLIC_BASE_URL = '';

  /** postgres://user:password@host:5432/database (also postgresql://; ?host=/socket/folder). */
  @Setting(secret(databaseUrl())) DATABASE_URL?: string;
  @Setting(folder()) EMBEDDED_PG_DIR = '.data/postgres';
  @Setting(int(1, 65535)) EMBEDDED_PG_PORT = 54329;
  @Setting(int(1, 200)) DB_POOL_SIZE = 10;
  /**
   * Server processes (node cluster) sharing the port: 1 (the default) runs one; 0 one per core.
   * Each has its own pool of DB_POOL_SIZE connections (docs/performance.md, "Every core").
   */
  @Setting(int(0, 64)) WORKERS = 1;
  /**
   * max-age of anonymous reads of published data (`Cache-Control: public`); 0: `no-cache`, so a
   * browser or CDN keeps them but revalidates each time (a 304 when nothing changed).
   */
  @Setting(int(0, 86_400)) PUBLIC_CACHE_MAX_AGE_SECONDS = 0;
  @Setting(bool()) MIGRATIONS_RUN = true;

  @Setting(bool()) BOOTSTRAP_ENABLED = true;
  @Setting(secret(apiKey())) BOOTSTRAP_API_KEY?: string;
  @Setting(siteName()) BOOTSTRAP_SITE = 'demo';

  @Setting(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])) LOG_LEVEL:
    'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' = 'info';
  /** auto: readable lines when stdout is a terminal, JSON lines otherwise. */
  @Setting(oneOf(['auto', 'json', 'pretty'])) LOG_FORMAT: 'auto' | 'json' | 'pretty' = 'auto';
  /** The largest JSON or form body read (bytes; bigger ones are a 413). */
  @Setting(size('1kb', '100mb')) BODY_LIMIT = 1024 * 1024;
  /** Express's `trust proxy`, parsed: what app.set('trust proxy') is given. */
  @Setting(trustProxy()) TRUST_PROXY: TrustProxy = false;
  @Setting(bool()) DOCS_ENABLED = true;
  /** Requests slower than this are logged at warn with their route (docs/operations.md); 0: off. */
  @Setting(int(0, 3_600_000)) SLOW_REQUEST_MS = 1000;
  /**
   * The fenced fast paths of src/common/internals (the params/query memo); false: the plain path
   * everywhere, to rule them out when something looks wrong (docs/performance.md, "Fenced fast paths").
   */
  @Setting(bool()) FAST_PATHS = true;

  // Metrics (docs/operations.md). Off unless a token or a port is set.
  /** Bearer token that GET /metrics on the main port requires; empty: no /metrics there. */
  @Setting(secret(token(16, 'a token'))) METRICS_TOKEN = '';
  /** A separate port serving GET /metrics without a token (bind it to a private address); 0: none. */
  @Setting(int(0, 65535)) METRICS_PORT = 0;
  @Setting(listenHost()) METRICS_HOST = '127.0.0.1';
  /** How long the gauges read from the database (queues, outbox, campaigns) are reused between scrapes. */
  @Setting(int(0, 60_000)) METRICS_CACHE_MS = 5000;

  @Setting(int(1000, 86_400_000)) RATE_LIMIT_TTL_MS = 60_000;
  @Setting(int(1, COUNT_MAX)) RATE_LIMIT_PUBLIC_MAX = 120;
  /** Per API key, every route, per RATE_LIMIT_TTL_MS; 0: not limited (docs/foundation.md, "Fair share"). */
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_KEY_MAX = 10_000;
  /** A publishable key's requests a minute, every holder together, unless the key sets its own. */
  @Setting(int(1, COUNT_MAX)) PUBLISHABLE_KEY_RATE_PER_MINUTE = 6000;
  /** Per site-user session, every route, per RATE_LIMIT_TTL_MS; 0: not limited. */
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_SESSION_MAX = 1200;
  // Budgets per account of the routes that declare a cost (src/common/rate-limit/route-costs.ts):
  // requests per RATE_LIMIT_TTL_MS (every instance together) and requests in flight at once
  // (per instance); 0: that budget is off.
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_RENDER_MAX = 600;
  @Setting(int(0, 1000)) RATE_LIMIT_RENDER_CONCURRENCY = 4;
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_OUTBOUND_MAX = 120;
  @Setting(int(0, 1000)) RATE_LIMIT_OUTBOUND_CONCURRENCY = 4;
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_IMPORT_MAX = 120;
  @Setting(int(0, 1000)) RATE_LIMIT_IMPORT_CONCURRENCY = 2;
  @Setting(int(0, COUNT_MAX)) RATE_LIMIT_UPLOAD_MAX = 600;
  @Setting(int(0, 1000)) RATE_LIMIT_UPLOAD_CONCURRENCY = 8;
  /** How long a verified key is trusted from memory; changes reach every instance at commit. 0: off. */
  @Setting(int(0, 86_400_000)) API_KEY_CACHE_TTL_MS = 60_000;

  @Setting(int(0, YEAR_SECONDS)) ACCOUNT_DELETION_GRACE_SECONDS = 7 * 24 * 3600;
  @Setting(int(60, 30 * DAY_SECONDS)) IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

  @Setting(bool()) JOBS_ENABLED = true;
  @Setting(int(100, 3_600_000)) OUTBOX_POLL_MS = 1000;
  /** Failed deliveries of one outbox event to its subscribers before it is parked (docs/foundation.md). */
  @Setting(int(1, 100)) OUTBOX_MAX_ATTEMPTS = 10;
  @Setting(int(1, 100)) JOBS_POLL_SECONDS = 2;
  @Setting(int(1000, 3_600_000)) SHUTDOWN_TIMEOUT_MS = 10_000;

  // Media (docs/media.md)
  @Setting(oneOf(['local', 's3'])) MEDIA_STORAGE: 'local' | 's3' = 'local';
  @Setting(folder()) MEDIA_LOCAL_DIR = '.data/media';
  @Setting(urlPath()) MEDIA_PUBLIC_PATH = '/files';
  /** Spool folder for uploads in progress; empty: <MEDIA_LOCAL_DIR>/.tmp. */
  @Setting(folder()) MEDIA_TMP_DIR = '';
  @Setting(size('1kb', '5gb')) MEDIA_MAX_BYTES = 25 * 1024 * 1024;
  @Setting(int(1, 100)) MEDIA_MAX_FILES = 10;
  @Setting(intList(16, 8192, 10)) MEDIA_THUMBNAIL_WIDTHS: number[] = [150, 600, 1200];
  @Setting(int(1, 1_000_000_000)) MEDIA_MAX_PIXELS = 50_000_000;
  @Setting(int(1, 64)) MEDIA_PROCESSING_CONCURRENCY = 2;
  @Setting(bucketName(), { when: (c: AppConfig) => c.MEDIA_STORAGE === 's3', because: 'MEDIA_STORAGE=s3' })
  S3_BUCKET = '';
  @Setting(s3Region()) S3_REGION = 'us-east-1';
  /** Empty: AWS itself; set for MinIO, R2 and other S3-compatible servers. */
  @Setting(webUrl('http://minio:9000')) S3_ENDPOINT = '';
  @Setting(secret(token(1, 'an access key id')), {
    when: (c: AppConfig) => c.S3_SECRET_ACCESS_KEY !== '',
    because: 'S3_SECRET_ACCESS_KEY is set',
  })
  S3_ACCESS_KEY_ID = '';
  @Setting(secret(token(1, 'a secret access key')), {
    when: (c: AppConfig) => c.S3_ACCESS_KEY_ID !== '',
    because: 'S3_ACCESS_KEY_ID is set',
  })
  S3_SECRET_ACCESS_KEY = '';
  @Setting(bool()) S3_FORCE_PATH_STYLE = false;
  /** Public origin of the bucket (CDN); empty: files are streamed through MEDIA_PUBLIC_PATH. */
  @Setting(webUrl('https://cdn.example.com/media')) S3_PUBLIC_URL = '';

  // Content (docs/content.md)
  /** How long an instance serves anonymous content reads from memory; 0 turns the cache off. */
  @Setting(int(0, 3_600_000)) CONTENT_CACHE_TTL_MS = 5000;

  // Site users (docs/users.md)
  /** How long a one-time sign-in code works. */
  @Setting(int(60, 86_400)) USER_OTP_TTL_SECONDS = 600;
  /** Wrong tries a code allows; the next one fails even with the right code. */
  @Setting(int(1, 20)) USER_OTP_MAX_ATTEMPTS = 5;
  /** A new code for the same address waits this long after the last one. */
  @Setting(int(0, 3600)) USER_OTP_RESEND_SECONDS = 60;
  /**
   * Codes one address may be sent in an hour, sign-in and email change together (shared by
   * instances); also the email changes one user may ask for in an hour.
   */
  @Setting(int(1, 1_000_000)) USER_OTP_EMAIL_HOURLY_LIMIT = 10;
  /** Codes one address may be sent in a day; a verified owner is told once when it is reached. */
  @Setting(int(1, 1_000_000)) USER_OTP_EMAIL_DAILY_LIMIT = 20;
  /** Code requests and sign-in tries one client IP may make in an hour (shared by instances). */
  @Setting(int(1, 1_000_000)) USER_OTP_IP_HOURLY_LIMIT = 60;

  // Newsletter (docs/newsletter.md)
  /** A confirmation link works this many hours after it was mailed (and once). */
  @Setting(int(1, 24 * 30)) NEWSLETTER_CONFIRM_TTL_HOURS = 48;
  /** Public subscribes per client IP and site, per hour (429 past it). */
  @Setting(int(1, 1_000_000)) NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT = 30;
  /** Confirmation mails per address and site, per hour; past it the answer is the same and nothing is sent. */
  @Setting(int(1, 1_000_000)) NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT = 3;
  /** An import file may be at most this many bytes. */
  @Setting(size('1kb', '10gb')) NEWSLETTER_IMPORT_MAX_BYTES = 256 * 1024 * 1024;
  /** Imports of at most this many rows answer at once (200); larger ones are queued (202). */
  @Setting(int(0, 10_000_000)) NEWSLETTER_IMPORT_SYNC_ROWS = 1000;
  /** Rows upserted per statement and transaction by an import. */
  @Setting(int(100, 50_000)) NEWSLETTER_IMPORT_BATCH_ROWS = 5000;
  /** Batches an import upserts side by side (each a database connection). */
  @Setting(int(1, 8)) NEWSLETTER_IMPORT_WORKERS = 2;
  /** Campaign recipients handed to the email module per transaction of a send. */
  @Setting(int(1, 5000)) NEWSLETTER_SEND_BATCH_SIZE = 500;
  /** A site's campaign send rate (mails a minute) unless its `newsletter.sendRatePerMinute` says otherwise. */
  @Setting(int(1, COUNT_MAX)) NEWSLETTER_SEND_RATE_PER_MINUTE = 60_000;
  /**
   * Fair share of the mail queue: a campaign send hands over no more copies while its ACCOUNT has
   * this many mails recorded and not yet sent (every site, every campaign); it resumes as they
   * drain, behind the other accounts' work. 0: no bound (docs/newsletter.md, "Delivery").
   */
  @Setting(int(0, COUNT_MAX)) NEWSLETTER_ACCOUNT_BACKLOG_MAX = 5000;
  /** Imports an account may have queued or running at once (the next is a 429); 0: no bound. */
  @Setting(int(0, 1000)) NEWSLETTER_ACCOUNT_IMPORTS_MAX = 3;
  /** Tracking events written per statement at most, and the longest an event waits for its batch (ms). */
  @Setting(int(1, 10_000)) NEWSLETTER_TRACKING_BATCH = 500;
  @Setting(int(0, 1000)) NEWSLETTER_TRACKING_FLUSH_MS = 5;
  /** Opens and clicks this soon after a copy was delivered are flagged as a machine's. */
  @Setting(int(0, 3600)) NEWSLETTER_MACHINE_WINDOW_SECONDS = 5;
  /** How long a session lasts. */
  @Setting(int(60, YEAR_SECONDS)) USER_SESSION_TTL_SECONDS = 30 * 24 * 3600;
  /** How long an instance keeps a verified session (with its user) in memory; 0: never. */
  @Setting(int(0, 3_600_000)) USER_SESSION_CACHE_TTL_MS = 60_000;
  /** Seconds between a user's erasure request and the erasure; 0: at once. */
  @Setting(int(0, YEAR_SECONDS)) USER_DELETION_GRACE_SECONDS = 7 * 24 * 3600;

  // Catalog (docs/catalog.md)
  /** How long an instance serves anonymous product and category reads from memory; 0 turns it off. */
  @Setting(int(0, 3_600_000)) CATALOG_CACHE_TTL_MS = 5000;

  // Orders (docs/orders.md)
  /** After a rotation of a site's fulfillment secret, the previous one keeps verifying notifications this long. */
  @Setting(int(0, YEAR_SECONDS)) FULFILLMENT_SECRET_GRACE_SECONDS = 24 * 3600;

  // Payments (docs/payments.md)
  /**
   * The key that seals each site's processor secrets at rest: 32 random bytes, base64 or hex
   * (`openssl rand -base64 32`). Without it, no site can be connected to Stripe.
   */
  @Setting(secretsKey(), {
    when: (c: AppConfig) => c.STRIPE_TEST_SECRET_KEY !== '',
    because: 'STRIPE_TEST_SECRET_KEY is set',
  })
  SECRETS_ENCRYPTION_KEY = '';
  /** Where the Stripe API is: https://api.stripe.com, or an egress proxy or a stand-in for tests. */
  @Setting(webUrl('https://api.stripe.com')) STRIPE_API_BASE = 'https://api.stripe.com';
  /** One Stripe request's time limit (ms), and the retries the official client makes of a failed one. */
  @Setting(int(1000, 120_000)) STRIPE_TIMEOUT_MS = 20_000;
  @Setting(int(0, 5)) STRIPE_MAX_NETWORK_RETRIES = 2;
  /** How far a Stripe event's signature timestamp may be from now (seconds). */
  @Setting(int(10, 3600)) STRIPE_WEBHOOK_TOLERANCE_SECONDS = 300;
  /** The demo site (BOOTSTRAP_SITE) is connected in test mode with these at first start (docs/payments.md). */
  @Setting(secret(stripeKey('test'))) STRIPE_TEST_SECRET_KEY = '';
  @Setting(secret(stripeWebhookSecret()), {
    when: (c: AppConfig) => c.STRIPE_TEST_SECRET_KEY !== '',
    because: 'STRIPE_TEST_SECRET_KEY is set',
  })
  STRIPE_TEST_WEBHOOK_SECRET = '';

  // Email (docs/email.md)
  /** smtp://user:pass@host:587 or smtps://…:465; empty: messages are recorded and logged, not sent. */
  @Setting(secret(smtpUrl())) SMTP_URL = '';
  /**
   * The envelope sender of all mail, and the From of sites whose address is not at a domain their
   * account verified (docs/email.md, "Sender domains"): an address, or `Name <address>`.
   */
  @Setting(mailbox()) MAIL_FROM = 'Sitebase <no-reply@localhost>';
  /** Connections the pooled SMTP transport keeps open. */
  @Setting(int(1, 100)) SMTP_POOL_SIZE = 5;
  /** Retries of a message the SMTP server refuses for now (4xx, connection errors), with backoff. */
  @Setting(int(0, 50)) EMAIL_RETRY_LIMIT = 8;
  /** First retry delay in seconds; each later one doubles it. */
  @Setting(int(1, DAY_SECONDS)) EMAIL_RETRY_DELAY_SECONDS = 30;

  // Bounces and complaints (docs/deliverability.md)
  /**
   * The domain of the per-message envelope sender (VERP: `bounces+<token>@<BOUNCE_DOMAIN>`); its MX
   * must reach the bounce listener or a mailbox forwarded to it. Empty: every message's envelope
   * sender is MAIL_FROM's address, as before.
   */
  @Setting(mailDomain(), { when: (c: AppConfig) => c.BOUNCE_SMTP_PORT !== 0, because: 'BOUNCE_SMTP_PORT is set' })
  BOUNCE_DOMAIN = '';
  /** The port of the SMTP listener that receives bounces and complaints (DSN, ARF); 0: no listener. */
  @Setting(int(0, 65535)) BOUNCE_SMTP_PORT = 0;
  @Setting(listenHost()) BOUNCE_SMTP_HOST = '0.0.0.0';
  /** The largest report the listener accepts (bytes); a DSN carries at most the original's headers or a part of it. */
  @Setting(size('10kb', '50mb')) BOUNCE_SMTP_MAX_BYTES = 2 * 1024 * 1024;
  /** Messages one client (remote address) may send the listener per minute; past it a 421. 0: no limit. */
  @Setting(int(0, 1_000_000)) BOUNCE_SMTP_RATE_PER_MINUTE = 60;
  /** Soft bounces of an address within BOUNCE_SOFT_WINDOW_DAYS that mark it `bounced`, unless its site says otherwise. */
  @Setting(int(1, 100)) BOUNCE_SOFT_LIMIT = 3;
  @Setting(int(1, 365)) BOUNCE_SOFT_WINDOW_DAYS = 7;
  /** Mailgun's webhook signing key (its events route answers 404 while empty). */
  @Setting(secret(token(16, "Mailgun's signing key"))) MAILGUN_WEBHOOK_SIGNING_KEY = '';
  /** The token Postmark's webhooks send in `x-sitebase-webhook-token` (its route answers 404 while empty). */
  @Setting(secret(token(24, 'a random secret'))) POSTMARK_WEBHOOK_TOKEN = '';
  /** SendGrid's Signed Event Webhook verification key: base64 DER (SPKI) of its ECDSA P-256 public key (its route answers 404 while empty). */
  @Setting(sendgridPublicKey()) SENDGRID_WEBHOOK_PUBLIC_KEY = '';
  /**
   * The SNS topics (ARNs, comma-separated) Amazon SES publishes bounces and complaints to: a
   * signed message of any other topic is refused. Its route answers 404 while empty.
   */
  @Setting(snsTopicArns()) SES_SNS_TOPIC_ARNS: string[] = [];

  // Webhooks (docs/webhooks.md)
  /** Allow endpoints on private, loopback and link-local addresses (tests, private networks). */
  @Setting(bool()) WEBHOOKS_ALLOW_PRIVATE = false;
  /** Allow http:// endpoints; otherwise only https://. */
  @Setting(bool()) WEBHOOKS_ALLOW_HTTP = false;
  /** How long one delivery attempt may take, connection and response together. */
  @Setting(int(100, 120_000)) WEBHOOK_TIMEOUT_MS = 10_000;
  /**
   * Seconds to wait before each retry of a failed delivery (each gets ±20 % jitter); after the
   * last, the delivery is given up. The default spreads 10 attempts over about a day.
   */
  @Setting(intList(0, 7 * DAY_SECONDS, 50)) WEBHOOK_RETRY_SCHEDULE: number[] = [
    5, 60, 300, 1800, 3600, 7200, 14400, 28800, 28800,
  ];
  /** An endpoint failing without a success for this long is disabled (webhook.endpoint_disabled). */
  @Setting(int(1, YEAR_SECONDS)) WEBHOOK_DISABLE_AFTER_SECONDS = 5 * 24 * 3600;
  /** After a rotation, the previous secret keeps signing (a second signature) this long. */
  @Setting(int(0, YEAR_SECONDS)) WEBHOOK_SECRET_GRACE_SECONDS = 24 * 3600;
  /** Endpoints one instance delivers to at once (each endpoint's deliveries go one at a time, in order). */
  @Setting(int(1, 256)) WEBHOOK_CONCURRENCY = 8;
  /** Finished deliveries and their attempts are kept this many days. */
  @Setting(int(1, 3650)) WEBHOOK_LOG_RETENTION_DAYS = 30;

  // Sender domains (docs/email.md, "Sender domains")
  /** How long verifying a sender domain waits for each DNS TXT lookup before answering 503. */
  @Setting(int(100, 30_000)) SENDER_DNS_TIMEOUT_MS = 5000;
}

export const CONFIG_KEYS = [...settingsOf(AppConfig).keys()];

/**
 * Reads settings from `env` (defaults for what is unset or empty) and fails at boot on bad
 * values: one line per wrong setting, naming it, its value and what it accepts.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const config = new AppConfig();
  const wrong = readSettings(config, env);
  if (wrong.length > 0) throw new StartupError(wrong.join('\n'));
  if (!config.PUBLIC_BASE_URL) config.PUBLIC_BASE_URL = `http://localhost:${config.PORT}`;
  config.PUBLIC_BASE_URL = trimTrailing(config.PUBLIC_BASE_URL, '/');
  return config;
}
