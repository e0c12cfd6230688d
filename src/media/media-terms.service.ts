import { SLUG_MAX_LENGTH, slugOf } from '../common/slugs/slugs';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConflictProblem, ValidationProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { CursorQueryDto, Page } from '../common/pagination/page';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { CreateMediaTermDto, UpdateMediaTermDto } from './dto/media-term.dto';
import { MediaCategoryEntity, MediaTagEntity } from './entities/media-term.entity';
import { trimTrailing } from '../common/input/trim-trailing';
import { MediaRepository } from './media.repository';

export type MediaTermKind = 'category' | 'tag';
type TermEntity = MediaCategoryEntity | MediaTagEntity;

const ENTITY = { category: MediaCategoryEntity, tag: MediaTagEntity } as const;
const WHAT = { category: 'Media category', tag: 'Media tag' } as const;
const SLUG_KEY = { category: 'media_categories_site_id_slug_key', tag: 'media_tags_site_id_slug_key' } as const;

/**
 * Media categories and tags: the same rules for both (name, slug unique in the site,
 * description). Deleting one detaches it from every item (the link rows cascade).
 */
@Injectable()
export class MediaTermsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: MediaRepository,
  ) {}

  list(kind: MediaTermKind, site: SiteContext, query: CursorQueryDto): Promise<Page<TermEntity>> {
    return this.repository.listTerms<TermEntity>(ENTITY[kind], site.id, query);
  }

  get(kind: MediaTermKind, site: SiteContext, id: number): Promise<TermEntity> {
    return findInSiteOrFail<TermEntity>(this.dataSource.manager, ENTITY[kind], site, id, WHAT[kind]);
  }

  create(kind: MediaTermKind, site: SiteContext, dto: CreateMediaTermDto): Promise<TermEntity> {
    return this.dataSource.transaction(async (em) => {
      const slug = dto.slug ?? slugFromName(dto.name);
      const term = em
        .getRepository<TermEntity>(ENTITY[kind])
        .create({ siteId: site.id, name: dto.name, slug, description: dto.description ?? '' });
      return this.saving(kind, slug, () => em.save(term));
    });
  }

  update(kind: MediaTermKind, site: SiteContext, id: number, dto: UpdateMediaTermDto): Promise<TermEntity> {
    return this.dataSource.transaction(async (em) => {
      const term = await findInSiteOrFail<TermEntity>(em, ENTITY[kind], site, id, WHAT[kind], { lock: true });
      if (dto.name !== undefined) term.name = dto.name;
      if (dto.slug !== undefined) term.slug = dto.slug;
      if (dto.description !== undefined) term.description = dto.description;
      return this.saving(kind, term.slug, () => em.save(term));
    });
  }

  remove(kind: MediaTermKind, site: SiteContext, id: number): Promise<void> {
    return this.dataSource.transaction(async (em: EntityManager) => {
      await findInSiteOrFail<TermEntity>(em, ENTITY[kind], site, id, WHAT[kind], { lock: true });
      await em.delete(ENTITY[kind], { id, siteId: site.id });
    });
  }

  private async saving(kind: MediaTermKind, slug: string, save: () => Promise<TermEntity>): Promise<TermEntity> {
    try {
      return await save();
    } catch (err) {
      if (isUniqueViolation(err, SLUG_KEY[kind]))
        throw new ConflictProblem('duplicate_slug', `A ${kind} with the slug "${slug}" already exists in this site`);
      throw err;
    }
  }
}

function slugFromName(name: string): string {
  const slug = trimTrailing(slugOf(name).slice(0, SLUG_MAX_LENGTH), '-');
  if (!slug) throw new ValidationProblem([{ path: 'slug', message: 'is required when the name gives no slug' }]);
  return slug;
}
