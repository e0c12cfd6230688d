import { Setting } from './setting';
import { bool, int } from './setting-kinds';

/** The job queue and the outbox relay, which run in every instance unless switched off. */
export class JobsConfig {
  @Setting(bool()) JOBS_ENABLED = true;
  @Setting(int(100, 3_600_000)) OUTBOX_POLL_MS = 1000;
  /** Failed deliveries of one outbox event to its subscribers before it is parked (docs/foundation.md). */
  @Setting(int(1, 100)) OUTBOX_MAX_ATTEMPTS = 10;
  /** Days a dispatched outbox event is kept (the maintenance job removes it after; docs/deployment.md). */
  @Setting(int(1, 3650)) OUTBOX_RETENTION_DAYS = 30;
  /** Rows one retention statement removes at most: each batch is its own short statement. */
  @Setting(int(1, 100_000)) RETENTION_BATCH_SIZE = 5000;
  /** Batches one run of the maintenance job takes per rule at most; the rest waits for the next run. */
  @Setting(int(1, 10_000)) RETENTION_MAX_BATCHES = 20;
  @Setting(int(1, 100)) JOBS_POLL_SECONDS = 2;
  /** How long a graceful shutdown waits for running jobs (docs/deployment.md). */
  @Setting(int(1000, 3_600_000)) SHUTDOWN_TIMEOUT_MS = 10_000;
}
