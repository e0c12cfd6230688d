import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { recordEvent } from '../../common/outbox/record-event';
import { SiteContext } from '../../common/tenancy/site-context';
import { NewsletterConfig } from '../newsletter.config';
import { EmailService } from '../../email/email.service';
import { CampaignMail, Recipient } from './campaign-mail';
import { CampaignsRepository } from './campaigns.repository';
import { campaignPayload, syncLinks } from './campaign-links';
import { CampaignEntity } from '../entities/campaign.entity';
import { NEWSLETTER_EVENTS } from '../newsletter.events';
import { mapInSlices } from '../../common/scheduling/time-slice';

/** What one batch did. */
export interface BatchOutcome {
  /** Recipients handed over in this batch. */
  handed: number;
  /** Nothing more to do in this run: sent, paused, canceled, deleted, or not yet due. */
  done: boolean;
}

/**
 * A campaign's delivery, one batch per transaction (docs/newsletter.md, "Delivery"): under the
 * campaign's row lock it takes the next recipients in subscription-id order after its cursor
 * (the active, deliverable members of its lists, each address once), writes a recipients row per
 * subscription (unique per campaign and subscription), renders and hands their mails to the email
 * module, and moves the cursor — all in one commit. A crash rolls the whole batch back; a row
 * already there (committed) is never mailed again. Memory holds one batch, whatever the audience.
 */
@Injectable()
export class CampaignSender {
  private readonly logger = new Logger('Campaigns');

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: NewsletterConfig,
    private readonly mail: CampaignMail,
    private readonly email: EmailService,
    private readonly sites: SitesService,
    private readonly repository: CampaignsRepository,
  ) {}

  /** The site's rate (mails a minute) and the batch it allows. */
  async pace(siteId: number): Promise<{ perMinute: number; batch: number }> {
    const { settings } = await this.sites.profileOf(siteId);
    const perMinute = settings.newsletter?.sendRatePerMinute ?? this.config.NEWSLETTER_SEND_RATE_PER_MINUTE;
    const batch = Math.max(1, Math.min(this.config.NEWSLETTER_SEND_BATCH_SIZE, Math.ceil(perMinute / 60)));
    return { perMinute, batch };
  }

  site(siteId: number): Promise<SiteContext | null> {
    return this.sites.findById(siteId);
  }

  /**
   * Whether the site's account has NEWSLETTER_ACCOUNT_BACKLOG_MAX mails waiting for delivery
   * (its campaigns' copies and its other mail, on every site): its send then waits its turn.
   */
  async accountBacklogFull(site: SiteContext): Promise<boolean> {
    const max = this.config.NEWSLETTER_ACCOUNT_BACKLOG_MAX;
    return max > 0 && (await this.email.unsentOfAccount(site.accountId, max)) >= max;
  }

  batch(site: SiteContext, campaignId: number, size: number): Promise<BatchOutcome> {
    return this.dataSource.transaction(async (em) => {
      const campaign = await em.findOne(CampaignEntity, {
        where: { id: campaignId, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!campaign) return { handed: 0, done: true };
      if (campaign.status === 'scheduled') {
        if (campaign.scheduledAt && campaign.scheduledAt.getTime() > Date.now() + 1000)
          return { handed: 0, done: true };
        campaign.status = 'sending';
        campaign.startedAt = new Date();
        // Counted once, when the send starts (shown as `counts.audience`).
        campaign.audienceCount = await this.repository.audienceSize(em, campaign);
        await syncLinks(em, campaign);
      }
      if (campaign.status !== 'sending') return { handed: 0, done: true };

      const candidates = await this.next(em, campaign, size);
      let handed = 0;
      if (candidates.ids.length > 0) {
        const fresh = await this.repository.addRecipients(em, campaign.id, site.id, candidates.ids);
        const recipients = candidates.recipients.filter((r) => fresh.has(r.id));
        if (recipients.length > 0) {
          // Each copy is recorded without a body: the email module renders it when it is sent.
          const prepared = await this.mail.prepare(em, site, campaign, { body: false });
          await this.email.sendBatch(em, site, await mapInSlices(recipients, (r) => this.mail.copy(prepared, r)));
        }
        handed = recipients.length;
        campaign.sendCursor = candidates.last;
        campaign.recipientCount += handed;
      }
      const finished = candidates.scanned < size;
      if (finished) {
        campaign.status = 'sent';
        campaign.sentAt = new Date();
        campaign.version += 1;
      }
      await em.save(campaign);
      if (finished) {
        await recordEvent(em, site, NEWSLETTER_EVENTS.campaignSent, campaignPayload(campaign));
        this.logger.log({ campaignId: campaign.id, sent: campaign.recipientCount }, 'Campaign sent');
      }
      return { handed, done: finished };
    });
  }

  /**
   * The next `size` members after the cursor: each list's active members come from its
   * membership index in subscription order (one range scan per list), merged and deduplicated,
   * then the deliverable ones (and the attribute filter) are kept. The cursor moves past every
   * candidate read, kept or not.
   */
  private async next(
    em: EntityManager,
    c: CampaignEntity,
    size: number,
  ): Promise<{ ids: number[]; recipients: Recipient[]; last: number; scanned: number }> {
    const rows = await this.repository.candidates(em, c, size);
    const kept = rows.filter((r) => r.ok);
    return {
      ids: kept.map((r) => r.sub),
      recipients: kept.map((r) => ({
        id: r.sub,
        email: r.email!,
        name: r.name,
        attributes: r.attributes,
        manageNonce: r.manage_nonce,
      })),
      last: rows.length > 0 ? rows[rows.length - 1].sub : c.sendCursor,
      scanned: rows.length,
    };
  }

  /** Campaigns whose send was under way when instances stopped. */
  sending(): Promise<Array<{ siteId: number; campaignId: number }>> {
    return this.repository.sending();
  }
}
