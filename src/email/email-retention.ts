import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../common/scheduling/clock';
import { EmailConfig } from './email.config';
import { EmailRetentionRepository } from './email-retention.repository';

const DAY_MS = 86_400_000;

/**
 * What the email module keeps and for how long (docs/email.md, "What is stored"): a sent or failed
 * message's body EMAIL_BODY_RETENTION_DAYS after it was recorded, its record
 * EMAIL_MESSAGE_RETENTION_DAYS. Each step touches at most `limit` rows; the maintenance job runs
 * them in batches. The time is the Clock's.
 */
@Injectable()
export class EmailRetention {
  constructor(
    private readonly db: DataSource,
    private readonly config: EmailConfig,
    private readonly clock: Clock,
    private readonly repository: EmailRetentionRepository,
  ) {}

  dropBodies(limit: number): Promise<number> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.config.EMAIL_BODY_RETENTION_DAYS * DAY_MS);
    return this.repository.dropBodies(this.db, cutoff, now, limit);
  }

  deleteMessages(limit: number): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.EMAIL_MESSAGE_RETENTION_DAYS * DAY_MS);
    return this.repository.deleteMessages(this.db, cutoff, limit);
  }
}
