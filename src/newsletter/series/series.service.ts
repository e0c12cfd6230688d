import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import {
  NotFoundProblem,
  PreconditionFailedProblem,
  Problem,
  ValidationProblem,
  withStatus,
} from '../../common/errors/problems';
import { ifMatchAllows, versionEtag } from '../../common/http/etag';
import { recordEvent } from '../../common/outbox/record-event';
import { Page } from '../../common/pagination/page';
import { QueueService } from '../../common/queue/queue.service';
import { findInSiteOrFail, SiteContext } from '../../common/tenancy/site-context';
import { EmailTemplatesService } from '../../email/email-templates.service';
import { CreateSeriesDto, SeriesQueryDto, SeriesStepDto, SeriesView, UpdateSeriesDto } from '../dto/series.dto';
import { NewsletterListEntity } from '../entities/newsletter-list.entity';
import { SeriesStepEntity } from '../entities/series-step.entity';
import { SeriesEntity, SeriesListEntity } from '../entities/series.entity';
import { NEWSLETTER_EVENTS, SeriesEventPayload } from '../newsletter.events';
import { SeriesRepository } from './series.repository';
import { assertSeriesMove } from './series-status';
import { SERIES_KICK, SERIES_SWEEP_JOB, SERIES_TEMPLATE_TYPE } from './series-sweep.job';

/**
 * Newsletter series (docs/newsletter.md, "Series"): their trigger lists and steps. Enrollment
 * and sending are the sweep's (series-sweep.job.ts); a change here that moves due times
 * (resume, new steps) queues a sweep in its transaction.
 */
@Injectable()
export class SeriesService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(SeriesEntity) private readonly series: Repository<SeriesEntity>,
    private readonly repository: SeriesRepository,
    private readonly queue: QueueService,
    private readonly templates: EmailTemplatesService,
  ) {}

  async list(site: SiteContext, query: SeriesQueryDto): Promise<Page<SeriesView>> {
    const page = await this.repository.list(site.id, query);
    return { data: await this.views(this.dataSource.manager, page.data), pagination: page.pagination };
  }

  async get(site: SiteContext, id: number): Promise<SeriesView> {
    const series = await this.series.findOne({ where: { id, siteId: site.id } });
    if (!series) throw new NotFoundProblem('Series');
    return (await this.views(this.dataSource.manager, [series]))[0];
  }

  create(site: SiteContext, dto: CreateSeriesDto): Promise<SeriesView> {
    return this.dataSource.transaction(async (em) => {
      await this.checkLists(em, site, dto.listIds);
      await this.checkSteps(em, site, dto.steps, []);
      const series = await em.save(
        em.create(SeriesEntity, { siteId: site.id, name: dto.name, status: dto.status ?? 'active' }),
      );
      await this.writeLists(em, site, series.id, dto.listIds);
      await this.writeSteps(em, site, series.id, dto.steps, []);
      const view = (await this.views(em, [series]))[0];
      await recordEvent(em, site, NEWSLETTER_EVENTS.seriesCreated, payloadOf(view));
      return view;
    });
  }

  /**
   * A partial update under the row lock; with If-Match, a stale ETag is a 412. A PATCH that
   * changes nothing records no event and keeps the version.
   */
  update(site: SiteContext, id: number, dto: UpdateSeriesDto, ifMatch?: string): Promise<SeriesView> {
    return this.dataSource.transaction(async (em) => {
      const series = await findInSiteOrFail(em, SeriesEntity, site, id, 'Series', { lock: true });
      if (!ifMatchAllows(ifMatch, versionEtag(series.id, series.version))) throw new PreconditionFailedProblem();
      if (dto.status !== undefined) assertSeriesMove(series.status, dto.status);
      const before = (await this.views(em, [series]))[0];
      let changed = false;
      let kick = false;
      if (dto.name !== undefined && dto.name !== series.name) {
        series.name = dto.name;
        changed = true;
      }
      if (dto.status !== undefined) {
        series.status = dto.status;
        changed = true;
        kick ||= dto.status === 'active';
      }
      if (dto.listIds !== undefined && !sameSet(dto.listIds, before.listIds)) {
        await this.checkLists(em, site, dto.listIds);
        await em.delete(SeriesListEntity, { seriesId: series.id });
        await this.writeLists(em, site, series.id, dto.listIds);
        changed = true;
      }
      if (dto.steps !== undefined) {
        await this.checkSteps(em, site, dto.steps, before.steps);
        if (stepsDiffer(dto.steps, before.steps)) {
          await this.writeSteps(em, site, series.id, dto.steps, before.steps);
          await this.repository.replan(em, series.id);
          changed = true;
          kick = true;
        }
      }
      if (!changed) return before;
      series.version += 1;
      await em.save(series);
      const view = (await this.views(em, [series]))[0];
      await recordEvent(em, site, NEWSLETTER_EVENTS.seriesUpdated, payloadOf(view));
      if (kick) await this.queue.send(SERIES_SWEEP_JOB, {}, { em, singletonKey: SERIES_KICK });
      return view;
    });
  }

  /** Its steps, enrollments and their sends go with it (ON DELETE CASCADE): nothing more is sent. */
  remove(site: SiteContext, id: number): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const series = await findInSiteOrFail(em, SeriesEntity, site, id, 'Series', { lock: true });
      const view = (await this.views(em, [series]))[0];
      await em.delete(SeriesEntity, { id: series.id, siteId: site.id });
      await recordEvent(em, site, NEWSLETTER_EVENTS.seriesDeleted, payloadOf(view));
    });
  }

  /** API.md §4: a body naming what is not the site's is a 400 on the field (not a 404 of the series). */
  private async checkLists(em: EntityManager, site: SiteContext, listIds: number[]): Promise<void> {
    const found = await em.find(NewsletterListEntity, {
      where: { siteId: site.id, id: In(listIds) },
      select: { id: true },
    });
    const missing = listIds.findIndex((id) => !found.some((l) => l.id === id));
    if (missing >= 0)
      throw new ValidationProblem([{ path: `listIds.${missing}`, message: 'is not a list of this site' }]);
  }

  private async checkSteps(
    em: EntityManager,
    site: SiteContext,
    steps: SeriesStepDto[],
    existing: SeriesStepEntity[],
  ): Promise<void> {
    const errors: Array<{ path: string; message: string }> = [];
    const templates = await this.repository.templateTypes(
      em,
      site.id,
      steps.flatMap((s) => (s.templateId === undefined ? [] : [s.templateId])),
    );
    const seen = new Set<number>();
    steps.forEach((s, i) => {
      if (s.html === undefined && s.templateId === undefined)
        errors.push({ path: `steps.${i}.html`, message: 'html or templateId is required' });
      if (s.templateId !== undefined && templates.get(s.templateId) !== SERIES_TEMPLATE_TYPE)
        errors.push({
          path: `steps.${i}.templateId`,
          message: `must be an email template of this site of type ${SERIES_TEMPLATE_TYPE}`,
        });
      if (s.id !== undefined) {
        if (!existing.some((e) => e.id === s.id))
          errors.push({ path: `steps.${i}.id`, message: 'is not a step of this series' });
        else if (seen.has(s.id)) errors.push({ path: `steps.${i}.id`, message: 'is given twice' });
        seen.add(s.id);
      }
    });
    if (errors.length > 0) throw new ValidationProblem(errors);
    // A step's template passes today's template rules (one saved before them may not).
    for (const [i, s] of steps.entries())
      if (s.templateId !== undefined)
        await this.templates.assertUsable(site, { templateId: s.templateId }, em).catch((err: unknown) => {
          throw atStep(err, `steps.${i}.templateId`);
        });
  }

  private async writeLists(em: EntityManager, site: SiteContext, seriesId: number, listIds: number[]): Promise<void> {
    await em.insert(
      SeriesListEntity,
      listIds.map((listId) => ({ seriesId, listId, siteId: site.id })),
    );
  }

  /** Kept steps (given with their id) are updated in place, new ones inserted, the others removed. */
  private async writeSteps(
    em: EntityManager,
    site: SiteContext,
    seriesId: number,
    steps: SeriesStepDto[],
    existing: SeriesStepEntity[],
  ): Promise<void> {
    const kept = new Set(steps.flatMap((s) => (s.id === undefined ? [] : [s.id])));
    const removed = existing.filter((e) => !kept.has(e.id)).map((e) => e.id);
    if (removed.length > 0) await em.delete(SeriesStepEntity, { seriesId, id: In(removed) });
    for (const [i, s] of steps.entries()) {
      const fields = {
        position: i + 1,
        delaySeconds: s.delaySeconds,
        subject: s.subject,
        previewText: s.previewText ?? '',
        html: s.html ?? null,
        templateId: s.templateId ?? null,
      };
      if (s.id !== undefined) await em.update(SeriesStepEntity, { id: s.id, seriesId }, fields);
      else await em.insert(SeriesStepEntity, { seriesId, siteId: site.id, ...fields });
    }
  }

  private async views(em: EntityManager, rows: SeriesEntity[]): Promise<SeriesView[]> {
    const ids = rows.map((s) => s.id);
    if (ids.length === 0) return [];
    // One after the other: inside a transaction they share its one connection.
    const lists = await em.find(SeriesListEntity, { where: { seriesId: In(ids) }, order: { listId: 'ASC' } });
    const steps = await em.find(SeriesStepEntity, {
      where: { seriesId: In(ids) },
      order: { seriesId: 'ASC', position: 'ASC' },
    });
    const counts = await this.repository.counts(em, ids);
    return rows.map((series) => ({
      series,
      listIds: lists.filter((l) => l.seriesId === series.id).map((l) => l.listId),
      steps: steps.filter((s) => s.seriesId === series.id),
      enrollments: counts.get(series.id)!,
    }));
  }
}

function payloadOf(v: SeriesView): SeriesEventPayload {
  return { id: v.series.id, name: v.series.name, status: v.series.status, listIds: v.listIds, steps: v.steps.length };
}

/** A template's problem, its errors moved to the step that names it. */
function atStep(err: unknown, path: string): unknown {
  if (!(err instanceof Problem) || !err.errors) return err;
  const errors = err.errors.map((e) => ({ path, message: `its ${e.path} ${e.message}` }));
  return err instanceof ValidationProblem
    ? new ValidationProblem(errors)
    : new Problem(withStatus(err.getStatus(), err.code, { title: err.title, detail: err.detail, errors }));
}

function sameSet(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function stepsDiffer(next: SeriesStepDto[], existing: SeriesStepEntity[]): boolean {
  if (next.length !== existing.length) return true;
  return next.some((s, i) => {
    const e = existing[i];
    return (
      s.id !== e.id ||
      s.delaySeconds !== e.delaySeconds ||
      s.subject !== e.subject ||
      (s.previewText ?? '') !== e.previewText ||
      (s.html ?? null) !== e.html ||
      (s.templateId ?? null) !== e.templateId
    );
  });
}
