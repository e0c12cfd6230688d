import { Setting } from '../config/setting';
import { bool, DAY_SECONDS, int, intList, YEAR_SECONDS } from '../config/setting-kinds';

/** Webhooks (docs/webhooks.md): which endpoints are allowed, and how deliveries are tried and kept. */
export class WebhooksConfig {
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
}
