import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { ConflictProblem, NotFoundProblem, PreconditionFailedProblem } from '../../common/errors/problems';
import { isUniqueViolation } from '../../common/errors/postgres-errors';
import { ifMatchAllows, versionEtag } from '../../common/http/etag';
import { parseId } from '../../common/input/dto-rules';
import { recordEvent } from '../../common/outbox/record-event';
import { Page } from '../../common/pagination/page';
import { QueueService } from '../../common/queue/queue.service';
import { allocateSlug, baseSlug } from '../../common/slugs/slugs';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import { EmailService } from '../../email/email.service';
import { CampaignChecks } from './campaign-checks';
import { campaignPayload, syncLinks } from './campaign-links';
import { CampaignMail } from './campaign-mail';
import { CampaignsRepository } from './campaigns.repository';
import { CAMPAIGN_SEND_JOB, CampaignSendJobData } from './campaign-send.job';
import { assertCampaignMove, assertEditable } from './campaign-status';
import { CampaignQueryDto, CampaignWithStats, CreateCampaignDto, UpdateCampaignDto } from '../dto/campaign.dto';
import { CampaignEntity, CampaignStatsEntity } from '../entities/campaign.entity';
import { NEWSLETTER_EVENTS } from '../newsletter.events';

/** Fields whose change is an edit of the content (allowed only while draft, scheduled or paused). */
const CONTENT_FIELDS = [
  'name',
  'slug',
  'subject',
  'previewText',
  'fromName',
  'fromAddress',
  'replyTo',
  'contentHtml',
  'templateId',
  'listIds',
  'attributeFilter',
] as const;

/**
 * Campaigns (docs/newsletter.md, "Campaigns"): drafts, their moves by PATCH `status`, and the
 * test send. The send itself is the `newsletter.campaign-send` job (campaign-sender.ts).
 */
@Injectable()
export class CampaignsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    private readonly mail: CampaignMail,
    private readonly checks: CampaignChecks,
    private readonly email: EmailService,
    private readonly repository: CampaignsRepository,
  ) {}

  async list(site: SiteContext, query: CampaignQueryDto): Promise<Page<CampaignWithStats>> {
    const page = await this.repository.list(site.id, query);
    const stats = await this.statsOf(
      this.dataSource.manager,
      page.data.map((c) => c.id),
    );
    return {
      data: page.data.map((campaign) => ({ campaign, stats: stats.get(campaign.id) ?? null })),
      pagination: page.pagination,
    };
  }

  /** By id (all digits) or slug. */
  async get(site: SiteContext, idOrSlug: string): Promise<CampaignWithStats> {
    const id = parseId(idOrSlug);
    const campaign = await this.dataSource.manager.findOne(CampaignEntity, {
      where: id !== null ? { siteId: site.id, id } : { siteId: site.id, slug: idOrSlug },
    });
    if (!campaign) throw new NotFoundProblem('Campaign');
    return this.withStats(this.dataSource.manager, campaign);
  }

  async create(site: SiteContext, dto: CreateCampaignDto): Promise<CampaignWithStats> {
    return this.write(async (em) => {
      const campaign = em.create(CampaignEntity, {
        siteId: site.id,
        name: dto.name,
        subject: dto.subject ?? '',
        previewText: dto.previewText ?? '',
        fromName: dto.fromName ?? null,
        fromAddress: dto.fromAddress ?? null,
        replyTo: dto.replyTo ?? null,
        contentHtml: dto.contentHtml ?? '',
        templateId: dto.templateId ?? null,
        listIds: dto.listIds ?? [],
        attributeFilter: dto.attributeFilter ?? null,
        status: 'draft',
      });
      await this.mail.check(campaign);
      await this.checks.checkReferences(em, site, campaign);
      campaign.slug = await this.slugFor(em, site, dto.slug, dto.name);
      const saved = await em.save(campaign);
      const stats = await em.save(em.create(CampaignStatsEntity, { campaignId: saved.id, siteId: site.id }));
      return { campaign: saved, stats };
    });
  }

  /**
   * A partial update and/or a move. Content changes only while draft, scheduled or paused (409
   * otherwise); a stale If-Match is a 412; a forbidden move a 409; in every case nothing changes.
   */
  update(
    site: SiteContext,
    id: number,
    dto: UpdateCampaignDto,
    options: { ifMatch?: string } = {},
  ): Promise<CampaignWithStats> {
    return this.write(async (em) => {
      const campaign = await findInSiteOrFail(em, CampaignEntity, site, id, 'Campaign', { lock: true });
      if (!ifMatchAllows(options.ifMatch, versionEtag(campaign.id, campaign.version)))
        throw new PreconditionFailedProblem();
      let changed = false;
      const edits = CONTENT_FIELDS.filter(
        (f) => dto[f] !== undefined && JSON.stringify(dto[f]) !== JSON.stringify(campaign[f]),
      );
      if (edits.length > 0) {
        assertEditable(campaign.status);
        for (const field of edits) {
          if (field === 'slug') continue;
          (campaign as unknown as Record<string, unknown>)[field] = dto[field] ?? null;
        }
        if (dto.slug !== undefined && dto.slug !== campaign.slug)
          campaign.slug = await this.slugFor(em, site, dto.slug, campaign.name, campaign.id);
        await this.mail.check(campaign);
        await this.checks.checkReferences(em, site, campaign);
        changed = true;
      }
      const before = `${campaign.status}|${campaign.scheduledAt?.getTime() ?? ''}`;
      const event = await this.move(em, site, campaign, dto);
      if (event || before !== `${campaign.status}|${campaign.scheduledAt?.getTime() ?? ''}`) changed = true;
      if (!changed) return this.withStats(em, campaign);
      campaign.version += 1;
      const saved = await em.save(campaign);
      if (event) await recordEvent(em, site, event, campaignPayload(saved));
      return this.withStats(em, saved);
    });
  }

  /** A send in progress is paused or canceled first (409): the job owns it while it runs. */
  remove(site: SiteContext, id: number): Promise<void> {
    return this.write(async (em) => {
      const campaign = await findInSiteOrFail(em, CampaignEntity, site, id, 'Campaign', { lock: true });
      if (campaign.status === 'sending')
        throw new ConflictProblem('campaign_sending', 'Pause or let the send finish before deleting the campaign');
      await em.delete(CampaignEntity, { id: campaign.id });
    });
  }

  /** Renders the campaign for each address (as a subscriber without name or attributes) and sends it now. */
  testSend(site: SiteContext, id: number, emails: string[]): Promise<number> {
    return this.write(async (em) => {
      const campaign = await findInSiteOrFail(em, CampaignEntity, site, id, 'Campaign');
      await this.checks.assertReady(em, site, campaign);
      const prepared = await this.mail.prepare(em, site, campaign, { tracked: false });
      const mails = [...new Set(emails.map((e) => e.trim().toLowerCase()))].map((email) => {
        const mail = this.mail.render(prepared, {
          id: 1,
          email,
          name: '',
          attributes: {},
          manageNonce: 'test-send-no-subscription',
        });
        // A test copy's links must not act on anybody: its unsubscribe header goes.
        delete mail.headers;
        mail.data = { ...mail.data, subject: `[Test] ${mail.data?.subject as string}` };
        return mail;
      });
      await this.email.sendBatch(em, site, mails);
      return mails.length;
    });
  }

  /** Applies `status` / `scheduledAt`; answers the event to record, if any. */
  private async move(em: EntityManager, site: SiteContext, c: CampaignEntity, dto: UpdateCampaignDto) {
    const to = dto.status;
    const now = new Date();
    if (to === undefined || to === c.status) {
      if (dto.scheduledAt !== undefined && c.status === 'scheduled') {
        // Rescheduled: a new job at the new time; the old one finds it not yet due.
        c.scheduledAt = dto.scheduledAt && dto.scheduledAt > now ? dto.scheduledAt : now;
        await this.enqueue(em, c, c.scheduledAt);
        return NEWSLETTER_EVENTS.campaignScheduled;
      }
      if (dto.scheduledAt !== undefined) {
        if (dto.scheduledAt !== null) assertEditable(c.status);
        c.scheduledAt = dto.scheduledAt;
      }
      return undefined;
    }
    assertCampaignMove(c.status, to);
    switch (to) {
      case 'scheduled':
        await this.checks.assertReady(em, site, c);
        c.scheduledAt = dto.scheduledAt && dto.scheduledAt > now ? dto.scheduledAt : now;
        c.status = 'scheduled';
        await this.enqueue(em, c, c.scheduledAt);
        return NEWSLETTER_EVENTS.campaignScheduled;
      case 'draft':
        c.status = 'draft';
        c.scheduledAt = dto.scheduledAt ?? null;
        return undefined;
      case 'paused':
        c.status = 'paused';
        return NEWSLETTER_EVENTS.campaignPaused;
      case 'sending':
        // Resume: links added while paused get new indexes; the job carries on from its cursor.
        await this.checks.assertReady(em, site, c);
        c.status = 'sending';
        await syncLinks(em, c);
        await this.enqueue(em, c, now);
        return undefined;
      case 'canceled':
        c.status = 'canceled';
        c.canceledAt = now;
        return NEWSLETTER_EVENTS.campaignCanceled;
    }
  }

  private async enqueue(em: EntityManager, c: CampaignEntity, at: Date): Promise<void> {
    const data: CampaignSendJobData = { siteId: c.siteId, campaignId: c.id };
    await this.queue.send(CAMPAIGN_SEND_JOB, data, { em, startAfter: at });
  }

  private async slugFor(
    em: EntityManager,
    site: SiteContext,
    slug: string | undefined,
    name: string,
    exceptId?: number,
  ): Promise<string> {
    const base = baseSlug({ slug, title: name, fallback: 'campaign' });
    const allocated = await allocateSlug(em, CampaignEntity, site.id, base, { explicit: slug !== undefined, exceptId });
    if (allocated === null) throw new ConflictProblem('duplicate_slug', `The slug ${base} is taken in this site`);
    return allocated;
  }

  private async withStats(em: EntityManager, campaign: CampaignEntity): Promise<CampaignWithStats> {
    const stats = await em.findOne(CampaignStatsEntity, { where: { campaignId: campaign.id } });
    return { campaign, stats };
  }

  private async statsOf(em: EntityManager, ids: number[]): Promise<Map<number, CampaignStatsEntity>> {
    if (ids.length === 0) return new Map();
    const rows = await em.find(CampaignStatsEntity, { where: { campaignId: In(ids) } });
    return new Map(rows.map((s) => [s.campaignId, s]));
  }

  /** One transaction; a slug taken by a concurrent write is a 409 like any taken slug. */
  private async write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (err) {
      if (isUniqueViolation(err, 'newsletter_campaigns_site_id_slug_key'))
        throw new ConflictProblem('duplicate_slug', 'The slug is taken in this site');
      throw err;
    }
  }
}
