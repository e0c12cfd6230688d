import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { SitesService } from '../../account/sites.service';
import { OutboxRelay } from '../../common/outbox/outbox-relay.service';
import { QueueService } from '../../common/queue/queue.service';
import { SiteContext } from '../../common/tenancy/site-context';
import { EmailService, MailInput } from '../../email/email.service';
import { SeriesStepEntity } from '../entities/series-step.entity';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { NewsletterLinks } from '../links/newsletter-links.service';
import { NEWSLETTER_EVENTS, SubscriptionListsPayload } from '../newsletter.events';
import { DueEnrollment, SeriesRepository } from './series.repository';
import { nextStep } from './series-status';

export const SERIES_SWEEP_JOB = 'newsletter.series-sweep';
/** The singleton key of a sweep asked for now (a resume, an edit, someone joining a trigger list). */
export const SERIES_KICK = 'kick';
/** Enrollments one transaction sends to; a sweep runs at most this many batches, then asks for another. */
const BATCH = 100;
const MAX_BATCHES = 50;
/** A step whose mail could not be made (a template that no longer renders) is tried again after this. */
const RETRY_SECONDS = 600;
/** The cron sweep runs every minute; a step due sooner gets a sweep of its own at its time. */
const CRON_SECONDS = 60;
/** The template type a step renders with (its own HTML, or a site template of that type). */
export const SERIES_TEMPLATE_TYPE = 'newsletter.campaign';

export interface SeriesSweepResult {
  enrolled: number;
  sent: number;
  stopped: number;
}

/**
 * The series' queued work (docs/newsletter.md, "Series"), one job `newsletter.series-sweep`:
 * every minute (cron), at the time of the next due step, and when someone joins a trigger list
 * by a confirmation (the `newsletter.subscription.confirmed` event). It enrolls new joiners in
 * one statement, then sends the due steps in batches: each enrollment is row-locked (SKIP
 * LOCKED), its step recorded as sent and the mail handed to the email module in one
 * transaction, so a crash sends it again or not at all, never twice. Safe to run anywhere, twice.
 */
@Injectable()
export class SeriesSweepJob implements OnModuleInit {
  private readonly logger = new Logger('Newsletter');

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    private readonly relay: OutboxRelay,
    private readonly repository: SeriesRepository,
    private readonly email: EmailService,
    private readonly links: NewsletterLinks,
    private readonly sites: SitesService,
  ) {}

  onModuleInit(): void {
    this.queue.register(SERIES_SWEEP_JOB, async () => void (await this.run()), {
      cron: '* * * * *',
      retryLimit: 1,
      policy: 'stately',
    });
    // Mass writes (import, sync, bulk) record no per-person event: the cron sweep finds them.
    this.relay.subscribe(NEWSLETTER_EVENTS.subscriptionConfirmed.name, async (em, event, batch) => {
      const { listIds } = event.payload as unknown as SubscriptionListsPayload;
      if (event.siteId === null || !(await this.repository.triggers(em, event.siteId, listIds ?? []))) return;
      batch.once(SERIES_SWEEP_JOB, async () => {
        await this.queue.send(SERIES_SWEEP_JOB, {}, { em, singletonKey: SERIES_KICK });
      });
    });
  }

  async run(): Promise<SeriesSweepResult> {
    const result: SeriesSweepResult = { enrolled: 0, sent: 0, stopped: 0 };
    result.enrolled = await this.dataSource.transaction((em) => this.repository.enroll(em));
    for (let i = 0; i < MAX_BATCHES; i++) {
      const claimed = await this.dataSource.transaction((em) => this.sendDue(em, result));
      if (claimed < BATCH) break;
    }
    await this.scheduleNext();
    if (result.enrolled + result.sent + result.stopped > 0) this.logger.log(result, 'Series sweep');
    return result;
  }

  /** One batch of due enrollments, in the caller's transaction; answers how many were claimed. */
  private async sendDue(em: EntityManager, result: SeriesSweepResult): Promise<number> {
    const due = await this.repository.claimDue(em, BATCH);
    if (due.length === 0) return 0;
    const seriesIds = [...new Set(due.map((e) => e.seriesId))];
    const steps = await em.find(SeriesStepEntity, { where: { seriesId: In(seriesIds) } });
    const templates = new Map<number, Map<number, string>>();
    for (const siteId of new Set(due.map((e) => e.siteId))) {
      const ids = steps.filter((s) => s.siteId === siteId && s.templateId !== null).map((s) => s.templateId!);
      templates.set(siteId, await this.repository.templateTypes(em, siteId, ids));
    }
    const bases = new Map<number, string | undefined>();
    for (const e of due) {
      if (!e.onList) {
        await this.repository.stop(em, e.id, 'unsubscribed');
        result.stopped += 1;
        continue;
      }
      if (e.deliverability !== 'deliverable') {
        await this.repository.stop(em, e.id, 'undeliverable');
        result.stopped += 1;
        continue;
      }
      const ofSeries = steps.filter((s) => s.seriesId === e.seriesId);
      const step = ofSeries.find((s) => s.id === e.stepId);
      if (!step) {
        // Its step was removed by an edit that commits after this claim; that edit plans it again.
        await this.repository.postpone(em, e.id, CRON_SECONDS);
        continue;
      }
      if (!bases.has(e.siteId)) bases.set(e.siteId, (await this.sites.profileOf(e.siteId, em)).settings.publicBaseUrl);
      const site: SiteContext = { id: e.siteId, name: e.siteName, accountId: e.accountId };
      try {
        // A savepoint: a mail that cannot be made holds back only its own enrollment.
        const sent = await em.transaction(async (inner) => {
          const sendId = await this.repository.recordSend(inner, e, step.id, step.position);
          if (sendId === null) return false;
          const mail = await this.mailOf(inner, site, e, step, templates.get(e.siteId)!, bases.get(e.siteId));
          const [message] = await this.email.send(inner, site, mail);
          await this.repository.setSendMessage(inner, sendId, message.id);
          return true;
        });
        await this.repository.advance(em, e.id, nextStep(ofSeries, step.position), sent);
        if (sent) result.sent += 1;
      } catch (err) {
        this.logger.warn(
          { err, enrollmentId: e.id, stepId: step.id },
          'A series step could not be sent; retrying later',
        );
        await this.repository.postpone(em, e.id, RETRY_SECONDS);
      }
    }
    return due.length;
  }

  /**
   * The step's mail in the `newsletter.campaign` template type (the site's published template,
   * or the step's own template when it still exists), with the preferences link and RFC 8058
   * one-click `List-Unsubscribe` headers.
   */
  private async mailOf(
    em: EntityManager,
    site: SiteContext,
    e: DueEnrollment,
    step: SeriesStepEntity,
    templates: Map<number, string>,
    base: string | undefined,
  ): Promise<MailInput> {
    const token = await this.links.manageToken(
      site,
      { id: e.subscriptionId, manageNonce: e.manageNonce } as SubscriptionEntity,
      em,
    );
    const links = this.links.mailLinks(site, token, base);
    const useTemplate = step.templateId !== null && templates.get(step.templateId) === SERIES_TEMPLATE_TYPE;
    return {
      to: { email: e.email, ...(e.name ? { name: e.name } : {}) },
      ...(useTemplate ? { templateId: step.templateId! } : { templateType: SERIES_TEMPLATE_TYPE }),
      data: {
        subject: step.subject,
        contentHtml: step.html ?? '',
        unsubscribeUrl: links.preferencesUrl,
        ...(step.previewText ? { preheader: step.previewText } : {}),
      },
      tags: ['newsletter', 'series'],
      headers: links.headers,
      secrets: links.secrets,
    };
  }

  /** A step due before the next cron minute gets a sweep at its time (one job per second at most). */
  private async scheduleNext(): Promise<void> {
    const at = await this.repository.nextDue(this.dataSource.manager);
    if (!at || at.getTime() > Date.now() + CRON_SECONDS * 1000) return;
    const second = Math.ceil(at.getTime() / 1000);
    const startAfter = new Date(Math.max(second * 1000, Date.now()));
    await this.queue.send(SERIES_SWEEP_JOB, {}, { startAfter, singletonKey: `at-${second}` });
  }
}
