import { Setting } from './setting';
import { int, listenHost, secret, token } from './setting-kinds';

/** Metrics (docs/operations.md). Off unless a token or a port is set. */
export class MetricsConfig {
  /** Bearer token that GET /metrics on the main port requires; empty: no /metrics there. */
  @Setting(secret(token(16, 'a token'))) METRICS_TOKEN = '';
  /** A separate port serving GET /metrics without a token (bind it to a private address); 0: none. */
  @Setting(int(0, 65535)) METRICS_PORT = 0;
  @Setting(listenHost()) METRICS_HOST = '127.0.0.1';
  /** How long the gauges read from the database (queues, outbox, campaigns) are reused between scrapes. */
  @Setting(int(0, 60_000)) METRICS_CACHE_MS = 5000;
}
