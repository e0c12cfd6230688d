import { sql } from '../database/sql';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HttpConfig } from '../config/http.config';
import { QueueService } from './queue/queue.service';

export const MAINTENANCE_JOB = 'maintenance.cleanup';

/** Hourly clean-up of expired idempotency keys, rate-limit windows and old published events. */
@Injectable()
export class MaintenanceService implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    private readonly dataSource: DataSource,
    private readonly config: HttpConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register(MAINTENANCE_JOB, () => this.cleanup(), { cron: '17 * * * *', retryLimit: 1 });
  }

  async cleanup(): Promise<void> {
    await sql(this.dataSource, 'DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1)', [
      this.config.IDEMPOTENCY_TTL_SECONDS,
    ]);
    await sql(
      this.dataSource,
      'DELETE FROM rate_limits WHERE expires_at < now() AND (blocked_until IS NULL OR blocked_until < now())',
    );
    await sql(this.dataSource, "DELETE FROM outbox_events WHERE dispatched_at < now() - interval '30 days'");
  }
}
