import { Setting } from '../config/setting';
import { COUNT_MAX, int, size } from '../config/setting-kinds';

/** Newsletter (docs/newsletter.md): subscribing, imports, campaign sends and tracking. */
export class NewsletterConfig {
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
  /**
   * Days raw opens and clicks are kept; the campaigns' counters, kept on write, stay
   * (docs/deployment.md, "Storage and retention").
   */
  @Setting(int(1, 3650)) NEWSLETTER_TRACKING_RETENTION_DAYS = 90;
}
