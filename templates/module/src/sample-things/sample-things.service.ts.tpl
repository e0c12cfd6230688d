import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConflictProblem, NotFoundProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { allocateSlug, baseSlug } from '../common/slugs/slugs';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { CreateSampleThingDto, SampleThingQueryDto, UpdateSampleThingDto } from './dto/sample-thing.dto';
import { SampleThingEntity } from './entities/sample-thing.entity';
import { SAMPLE_THING_EVENTS } from './sample-things.events';
import { SampleThingsRepository } from './sample-things.repository';
// @if lifecycle
import { canMove } from './sample-thing-lifecycle';
// @end

const SLUG_KEY = 'sample_things_site_id_slug_key';

// @if !lifecycle
/** The rules of sample things: drafts hidden without a key, unique slugs, an event per write. */
// @end
// @if lifecycle
/**
 * The rules of sample things: drafts hidden without a key, unique slugs, an event per write, and
 * a status that moves only as the lifecycle's table says (sample-thing-lifecycle.ts).
 */
// @end
@Injectable()
export class SampleThingsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: SampleThingsRepository,
  ) {}

  list(site: SiteContext, query: SampleThingQueryDto, withDrafts: boolean): Promise<Page<SampleThingEntity>> {
    return this.repository.list(site, query, withDrafts);
  }

  /** By id or slug; a draft is a 404 to whoever may not see drafts. */
  async get(site: SiteContext, idOrSlug: string, withDrafts: boolean): Promise<SampleThingEntity> {
    const found = await this.repository.find(site, idOrSlug, withDrafts);
    if (!found) throw new NotFoundProblem('Sample thing');
    return found;
  }

  create(site: SiteContext, dto: CreateSampleThingDto): Promise<SampleThingEntity> {
    return this.dataSource.transaction(async (em) => {
      const status = dto.status ?? 'draft';
      const thing = em.create(SampleThingEntity, {
        siteId: site.id,
        title: dto.title,
        body: dto.body ?? '',
        status,
        publishedAt: status === 'published' ? new Date() : null,
        slug: await this.slugFor(em, site, dto.slug, dto.title),
      });
      const saved = await this.save(em, thing);
      await recordEvent(em, site, SAMPLE_THING_EVENTS.created, payload(saved));
      if (saved.status === 'published') await recordEvent(em, site, SAMPLE_THING_EVENTS.published, payload(saved));
      return saved;
    });
  }

  update(site: SiteContext, id: number, dto: UpdateSampleThingDto): Promise<SampleThingEntity> {
    return this.dataSource.transaction(async (em) => {
      const thing = await findInSiteOrFail(em, SampleThingEntity, site, id, 'Sample thing', { lock: true });
      const wasPublished = thing.status === 'published';
      if (dto.slug !== undefined && dto.slug !== thing.slug)
        thing.slug = await this.slugFor(em, site, dto.slug, thing.title, thing.id);
      if (dto.title !== undefined) thing.title = dto.title;
      if (dto.body !== undefined) thing.body = dto.body;
      // @if lifecycle
      if (dto.status !== undefined && !canMove(thing.status, dto.status))
        throw new ConflictProblem(
          'transition_forbidden',
          `This sample thing is ${thing.status}: it cannot become ${dto.status} (sample-thing-lifecycle.ts)`,
        );
      const wasArchived = thing.status === 'archived';
      // @end
      if (dto.status !== undefined) thing.status = dto.status;
      if (thing.status === 'published' && thing.publishedAt === null) thing.publishedAt = new Date();
      const saved = await this.save(em, thing);
      await recordEvent(em, site, SAMPLE_THING_EVENTS.updated, payload(saved));
      if (!wasPublished && saved.status === 'published')
        await recordEvent(em, site, SAMPLE_THING_EVENTS.published, payload(saved));
      // @if lifecycle
      if (!wasArchived && saved.status === 'archived')
        await recordEvent(em, site, SAMPLE_THING_EVENTS.archived, payload(saved));
      // @end
      return saved;
    });
  }

  remove(site: SiteContext, id: number): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const thing = await findInSiteOrFail(em, SampleThingEntity, site, id, 'Sample thing', { lock: true });
      await em.delete(SampleThingEntity, { id: thing.id, siteId: site.id });
      await recordEvent(em, site, SAMPLE_THING_EVENTS.deleted, payload(thing));
    });
  }

  private async save(em: EntityManager, thing: SampleThingEntity): Promise<SampleThingEntity> {
    try {
      return await em.save(thing);
    } catch (err) {
      if (isUniqueViolation(err, SLUG_KEY)) throw duplicateSlug(thing.slug);
      throw err;
    }
  }

  /** An explicit slug must be free (409); one made from the title gets the next free `-N`. */
  private async slugFor(
    em: EntityManager,
    site: SiteContext,
    slug: string | undefined,
    title: string,
    exceptId?: number,
  ): Promise<string> {
    const base = baseSlug({ slug, title, fallback: 'sample-thing' });
    const free = await allocateSlug(em, SampleThingEntity, site.id, base, { explicit: slug !== undefined, exceptId });
    if (free === null) throw duplicateSlug(base);
    return free;
  }
}

function payload(x: SampleThingEntity) {
  return { id: x.id, slug: x.slug, status: x.status };
}

function duplicateSlug(slug: string): ConflictProblem {
  return new ConflictProblem('duplicate_slug', `Another sample thing of this site has the slug "${slug}"`);
}
