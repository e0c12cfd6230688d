import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { Problem } from '../../common/errors/problems';
import { GoneCopy, MailInput, MailSource, MailSources } from '../../email/email.service';
import { CampaignEntity } from '../entities/campaign.entity';
import { CAMPAIGN_MAIL_TYPE, CampaignMail, PreparedCampaign } from './campaign-mail';
import { CampaignsRepository } from './campaigns.repository';

/** A campaign prepared for its copies is reused this long (its links, secret and base URL may change). */
const PREPARED_MS = 30_000;
const PREPARED_MAX = 64;

/**
 * The bodies of a campaign's copies (docs/newsletter.md, "Delivery"): a copy is recorded naming
 * the campaign and the subscription, never its body; the email module asks here when it sends the
 * copy (or an operator reads it), and the copy is rendered from the campaign and the subscriber as
 * they are then. A campaign deleted, or a subscriber erased, before their copy went: the copy
 * fails with the reason. The campaign's templates are parsed once for many copies.
 */
@Injectable()
export class CampaignCopies implements MailSource, OnModuleInit {
  readonly name = CAMPAIGN_MAIL_TYPE;
  private readonly prepared = new Map<string, { at: number; p: Promise<PreparedCampaign> }>();

  constructor(
    private readonly sources: MailSources,
    private readonly mail: CampaignMail,
    private readonly sites: SitesService,
    private readonly repository: CampaignsRepository,
  ) {}

  onModuleInit(): void {
    this.sources.register(this);
  }

  async mails(
    em: EntityManager,
    siteId: number,
    campaignId: number,
    subscriptionIds: number[],
  ): Promise<Array<MailInput | GoneCopy>> {
    const site = await this.sites.findById(siteId);
    const campaign = site ? await em.findOne(CampaignEntity, { where: { id: campaignId, siteId } }) : null;
    if (!site || !campaign) return subscriptionIds.map(() => ({ gone: 'its campaign was deleted' }));
    let prepared: PreparedCampaign;
    try {
      prepared = await this.prepare(campaign, () => this.mail.prepare(em, site, campaign));
    } catch (err) {
      return subscriptionIds.map(() => ({ gone: reason(err) }));
    }
    const found = new Map((await this.repository.recipients(em, siteId, subscriptionIds)).map((r) => [r.id, r]));
    return subscriptionIds.map((id) => {
      const recipient = found.get(id);
      if (!recipient) return { gone: 'its subscriber was deleted' };
      try {
        return this.mail.render(prepared, recipient);
      } catch (err) {
        return { gone: reason(err) };
      }
    });
  }

  /** The campaign prepared (tracked, its CSS inlined), shared by the copies of the next PREPARED_MS. */
  private prepare(c: CampaignEntity, make: () => Promise<PreparedCampaign>) {
    const key = `${c.id}\u0000${c.updatedAt.getTime()}\u0000${c.version}`;
    const now = Date.now();
    const hit = this.prepared.get(key);
    if (hit && now - hit.at < PREPARED_MS) return hit.p;
    if (this.prepared.size >= PREPARED_MAX) this.prepared.clear();
    const p = make();
    this.prepared.set(key, { at: now, p });
    p.catch(() => this.prepared.delete(key));
    return p;
  }
}

function reason(err: unknown): string {
  if (err instanceof Problem)
    return `its content does not render: ${err.errors?.[0]?.message ?? err.detail ?? err.title}`;
  throw err;
}
