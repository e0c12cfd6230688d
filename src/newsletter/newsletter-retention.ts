import { Injectable, OnModuleInit } from '@nestjs/common';
import { RetentionRegistry } from '../common/retention/retention.registry';
import { ImportRepository } from './bulk-import/import.repository';
import { NewsletterConfig } from './newsletter.config';
import { TrackingRepository } from './tracking/tracking.repository';
import { CampaignsRepository } from './campaigns/campaigns.repository';
import { EmailService } from '../email/email.service';

/** The newsletter's retention rules (docs/deployment.md, "Storage and retention"). */
@Injectable()
export class NewsletterRetention implements OnModuleInit {
  constructor(
    private readonly registry: RetentionRegistry,
    private readonly tracking: TrackingRepository,
    private readonly imports: ImportRepository,
    private readonly config: NewsletterConfig,
    private readonly campaigns: CampaignsRepository,
    private readonly email: EmailService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'newsletter.tracking-events',
      table: 'newsletter_tracking_events',
      setting: 'NEWSLETTER_TRACKING_RETENTION_DAYS',
      what: "raw opens and clicks; the campaigns' counters (the statistics) are kept on write and stay",
      run: (db, limit) => this.tracking.deleteOld(db, this.config.NEWSLETTER_TRACKING_RETENTION_DAYS, limit),
    });
    this.registry.register({
      name: 'newsletter.campaign-recipients',
      table: 'newsletter_campaign_recipients',
      setting: 'EMAIL_MESSAGE_RETENTION_DAYS',
      what: "a sent campaign's rows per recipient, with their copies' records; the campaign's counters stay",
      run: (db, limit) => this.campaigns.deleteOldRecipients(db, this.email.recordCutoff(), limit),
    });
    this.registry.register({
      name: 'newsletter.import-chunks',
      table: 'newsletter_import_chunks',
      setting: null,
      what: 'rows staged by imports that have finished (a failed import leaves some)',
      run: (db, limit) => this.imports.deleteFinishedChunks(db, limit),
    });
  }
}
