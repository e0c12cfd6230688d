import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { QueueService } from '../../common/queue/queue.service';
import { JobsConfig } from '../../config/jobs.config';
import { CampaignSender } from './campaign-sender';

export const CAMPAIGN_SEND_JOB = 'newsletter.campaign-send';

/** The job's payload: ids, never the campaign. */
export interface CampaignSendJobData {
  siteId: number;
  campaignId: number;
}

/** A run hands over batches for this long, then queues its continuation (other campaigns get their turn). */
const RUN_MS = 20_000;
/** A run whose account's mail backlog is full ends, and its continuation starts this much later. */
const BACKLOG_WAIT_MS = 1000;

/**
 * Runs a campaign's send (`newsletter.campaign-send`, docs/newsletter.md "Delivery"): batch after
 * batch at the site's rate until it is sent, paused or canceled. Safe to run twice, or twice at
 * once: every batch takes the campaign's row lock and skips recipients already recorded. On
 * start, every instance queues a run for each campaign still `sending` (a crash or a stop mid-send
 * resumes there); a stopping instance ends its run after the batch in hand. While the account has
 * NEWSLETTER_ACCOUNT_BACKLOG_MAX mails waiting for delivery, a run hands over nothing and comes
 * back later, so one account's campaign never fills the mail queue ahead of everyone else's.
 */
@Injectable()
export class CampaignSendJob implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Campaigns');
  private stopping = false;

  constructor(
    private readonly queue: QueueService,
    private readonly sender: CampaignSender,
    private readonly config: JobsConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register<CampaignSendJobData>(CAMPAIGN_SEND_JOB, (data) => this.run(data), {
      retryLimit: 10,
      retryDelaySeconds: 5,
      expireInSeconds: 600,
      concurrency: 2,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.JOBS_ENABLED) return;
    for (const data of await this.sender.sending()) await this.queue.send(CAMPAIGN_SEND_JOB, data);
  }

  onModuleDestroy(): void {
    this.stopping = true;
  }

  async run({ siteId, campaignId }: CampaignSendJobData): Promise<void> {
    const site = await this.sender.site(siteId);
    if (!site) return;
    const started = Date.now();
    while (!this.stopping) {
      // Fair share: the copies already waiting for the mail queue go first. The continuation
      // queues behind the other campaigns' runs, and this worker is free for them meanwhile.
      if (await this.sender.accountBacklogFull(site)) {
        await this.queue.send(
          CAMPAIGN_SEND_JOB,
          { siteId, campaignId },
          { startAfter: new Date(Date.now() + BACKLOG_WAIT_MS) },
        );
        return;
      }
      const { perMinute, batch } = await this.sender.pace(siteId);
      const t0 = Date.now();
      const outcome = await this.sender.batch(site, campaignId, batch);
      if (outcome.done) return;
      // The site's rate: this batch's mails take batch / rate of a minute.
      const wait = (outcome.handed * 60_000) / perMinute - (Date.now() - t0);
      if (Date.now() - started + Math.max(0, wait) > RUN_MS) {
        await this.queue.send(
          CAMPAIGN_SEND_JOB,
          { siteId, campaignId },
          { startAfter: new Date(Date.now() + Math.max(0, wait)) },
        );
        return;
      }
      // Interrupted by a stop: shutting down waits for running jobs.
      const until = Date.now() + wait;
      while (!this.stopping && Date.now() < until)
        await new Promise((r) => setTimeout(r, Math.min(100, until - Date.now())));
    }
    // Another live instance may carry on at once; every instance also resumes sends when it starts.
    await this.queue.send(CAMPAIGN_SEND_JOB, { siteId, campaignId }).catch(() => undefined);
    this.logger.log({ campaignId }, 'Stopping: the send resumes on another instance or at the next start');
  }
}
