import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HttpConfig } from '../config/http.config';
import { MaintenanceRepository } from './maintenance.repository';
import { QueueService } from './queue/queue.service';

export const MAINTENANCE_JOB = 'maintenance.cleanup';

/** Hourly clean-up of expired idempotency keys, rate-limit windows and old published events. */
@Injectable()
export class MaintenanceService implements OnModuleInit {
  private readonly repository = new MaintenanceRepository();

  constructor(
    private readonly queue: QueueService,
    private readonly dataSource: DataSource,
    private readonly config: HttpConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register(MAINTENANCE_JOB, () => this.cleanup(), { cron: '17 * * * *', retryLimit: 1 });
  }

  async cleanup(): Promise<void> {
    await this.repository.deleteExpiredIdempotencyKeys(this.dataSource, this.config.IDEMPOTENCY_TTL_SECONDS);
    await this.repository.deleteEndedRateLimits(this.dataSource);
    await this.repository.deleteOldDispatchedEvents(this.dataSource);
  }
}
