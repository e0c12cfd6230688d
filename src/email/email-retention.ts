import { Injectable, OnModuleInit } from '@nestjs/common';
import { RetentionRegistry } from '../common/retention/retention.registry';
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
export class EmailRetention implements OnModuleInit {
  constructor(
    private readonly db: DataSource,
    private readonly config: EmailConfig,
    private readonly clock: Clock,
    private readonly repository: EmailRetentionRepository,
    private readonly registry: RetentionRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'email.bodies',
      table: 'email_messages',
      setting: 'EMAIL_BODY_RETENTION_DAYS',
      what: 'the HTML and text of sent or failed transactional and series mail (campaign copies store none)',
      run: (_db, limit) => this.dropBodies(limit),
    });
    this.registry.register({
      name: 'email.messages',
      table: 'email_messages',
      setting: 'EMAIL_MESSAGE_RETENTION_DAYS',
      what: "messages' records (recipient, status, SMTP answer), and their bounce records with them",
      run: (_db, limit) => this.deleteMessages(limit),
    });
  }

  /** Days a message's record is kept (a campaign's recipient rows follow it). */
  get recordDays(): number {
    return this.config.EMAIL_MESSAGE_RETENTION_DAYS;
  }

  /** The instant before which a message's record goes. */
  recordCutoff(): Date {
    return new Date(this.clock.now().getTime() - this.config.EMAIL_MESSAGE_RETENTION_DAYS * DAY_MS);
  }

  dropBodies(limit: number): Promise<number> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.config.EMAIL_BODY_RETENTION_DAYS * DAY_MS);
    return this.repository.dropBodies(this.db, cutoff, now, limit);
  }

  deleteMessages(limit: number): Promise<number> {
    return this.repository.deleteMessages(this.db, this.recordCutoff(), limit);
  }
}
