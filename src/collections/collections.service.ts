import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConflictProblem, NotFoundProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { recordEvent } from '../common/outbox/record-event';
import { CollectionsRepository } from './collections.repository';
import { COLLECTION_EVENTS } from './collections.events';
import { CursorQueryDto, Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { allocateSlug, baseSlug } from '../common/slugs/slugs';
import { assertWindow } from './collection-window';
import { CreateCollectionDto, UpdateCollectionDto } from './dto/collection.dto';
import { CollectionEntity } from './entities/collection.entity';

const SLUG_KEY = 'collections_site_id_slug_key';
const PINNED_KEY = 'collections_site_id_pinned_key';

@Injectable()
export class CollectionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: CollectionsRepository,
  ) {}

  list(site: SiteContext, query: CursorQueryDto): Promise<Page<CollectionEntity>> {
    return this.repository.list(site.id, query);
  }

  get(site: SiteContext, id: number): Promise<CollectionEntity> {
    return findInSiteOrFail(this.dataSource.manager, CollectionEntity, site, id, 'Collection');
  }

  /** The pinned collection; else the one whose window contains now and that started last. */
  async current(site: SiteContext): Promise<CollectionEntity> {
    const found = await this.repository.current(site.id);
    if (!found) throw new NotFoundProblem('Current collection');
    return found;
  }

  create(site: SiteContext, dto: CreateCollectionDto): Promise<CollectionEntity> {
    return this.dataSource.transaction(async (em) => {
      const window = { startsAt: dto.startsAt ?? null, endsAt: dto.endsAt ?? null };
      assertWindow(window);
      const collection = em.create(CollectionEntity, {
        siteId: site.id,
        name: dto.name,
        description: dto.description ?? '',
        pinned: dto.pinned ?? false,
        ...window,
        slug: await this.slugFor(em, site, dto.slug, dto.name),
      });
      const saved = await this.save(em, site, collection);
      await recordEvent(em, site, COLLECTION_EVENTS.created, { id: saved.id, slug: saved.slug });
      return saved;
    });
  }

  update(site: SiteContext, id: number, dto: UpdateCollectionDto): Promise<CollectionEntity> {
    return this.dataSource.transaction(async (em) => {
      const collection = await findInSiteOrFail(em, CollectionEntity, site, id, 'Collection', { lock: true });
      if (dto.slug !== undefined && dto.slug !== collection.slug)
        collection.slug = await this.slugFor(em, site, dto.slug, collection.name);
      if (dto.name !== undefined) collection.name = dto.name;
      if (dto.description !== undefined) collection.description = dto.description;
      if (dto.pinned !== undefined) collection.pinned = dto.pinned;
      if (dto.startsAt !== undefined) collection.startsAt = dto.startsAt;
      if (dto.endsAt !== undefined) collection.endsAt = dto.endsAt;
      assertWindow(collection);
      const saved = await this.save(em, site, collection);
      await recordEvent(em, site, COLLECTION_EVENTS.updated, { id: saved.id, slug: saved.slug });
      return saved;
    });
  }

  /** Deletes the collection and its item list (the content stays). */
  remove(site: SiteContext, id: number): Promise<void> {
    return this.dataSource.transaction(async (em) => {
      const collection = await findInSiteOrFail(em, CollectionEntity, site, id, 'Collection', { lock: true });
      await em.delete(CollectionEntity, { id: collection.id, siteId: site.id });
      await recordEvent(em, site, COLLECTION_EVENTS.deleted, { id: collection.id, slug: collection.slug });
    });
  }

  /** Pinning one collection unpins the site's other one (one pinned per site). */
  private async save(em: EntityManager, site: SiteContext, collection: CollectionEntity): Promise<CollectionEntity> {
    if (collection.pinned) {
      for (const row of await this.repository.unpinOthers(em, site.id, collection.id ?? null))
        await recordEvent(em, site, COLLECTION_EVENTS.updated, { id: row.id, slug: row.slug });
    }
    try {
      return await em.save(collection);
    } catch (err) {
      if (isUniqueViolation(err, SLUG_KEY)) throw duplicateSlug(collection.slug);
      if (isUniqueViolation(err, PINNED_KEY))
        throw new ConflictProblem('pinned_conflict', 'Another collection was pinned at the same time; try again');
      throw err;
    }
  }

  /** An explicit slug must be free (409); one made from the name gets the next free `-N`. */
  private async slugFor(em: EntityManager, site: SiteContext, slug: string | undefined, name: string): Promise<string> {
    const base = baseSlug({ slug, title: name, fallback: 'collection' });
    const free = await allocateSlug(em, CollectionEntity, site.id, base, { explicit: slug !== undefined });
    if (free === null) throw duplicateSlug(base);
    return free;
  }
}

function duplicateSlug(slug: string): ConflictProblem {
  return new ConflictProblem('duplicate_slug', `Another collection of this site has the slug "${slug}"`);
}
