import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConflictProblem, NotFoundProblem, ValidationProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { allocateSlug, baseSlug } from '../common/slugs/slugs';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { MediaService } from '../media/media.service';
import { CatalogRepository } from './catalog.repository';
import { CATALOG_EVENTS } from './catalog.events';
import { CategoryQueryDto, CreateCategoryDto, UpdateCategoryDto } from './dto/category.dto';
import { ProductCategoryEntity } from './entities/product-category.entity';
import { PublicCatalogCache } from './public-catalog.cache';

const SLUG_KEY = 'product_categories_site_id_slug_key';

/** Product categories: anyone reads them, a key writes them (docs/catalog.md). */
@Injectable()
export class CategoriesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: CatalogRepository,
    private readonly media: MediaService,
    private readonly cache: PublicCatalogCache,
  ) {}

  /** Categories have no drafts: every reader gets the same answer, through the cache. */
  list(site: SiteContext, query: CategoryQueryDto): Promise<Page<ProductCategoryEntity>> {
    return this.cache.through(
      site.id,
      `categories:${query.cursor ?? ''}:${query.limit}`,
      true,
      () => this.repository.listCategories(site, query),
      (page) => 256 + page.data.length * 512,
    );
  }

  /** `cached`: a reader's get (a write's check of a category reads the database). */
  async get(site: SiteContext, id: number, cached = false): Promise<ProductCategoryEntity> {
    const found = await this.cache.through(
      site.id,
      `category:${id}`,
      cached,
      async () => (await this.repository.findCategory(site, id)) ?? null,
      () => 1024,
    );
    if (!found) throw new NotFoundProblem('Category');
    return found;
  }

  create(site: SiteContext, dto: CreateCategoryDto): Promise<ProductCategoryEntity> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        await this.media.assertAttachable(em, site, dto.attachmentIds ?? [], 'attachmentIds');
        const category = em.create(ProductCategoryEntity, {
          siteId: site.id,
          name: dto.name,
          slugPrefix: dto.slugPrefix ?? '',
          description: dto.description ?? '',
          position: dto.position ?? 0,
          attachmentIds: dto.attachmentIds ?? [],
          slug: await this.slugFor(em, site, dto.slug, dto.name, dto.slugPrefix),
        });
        const saved = await this.save(em, category);
        await recordEvent(em, site, CATALOG_EVENTS.categoryCreated, { id: saved.id, slug: saved.slug });
        return saved;
      }),
    );
  }

  update(site: SiteContext, id: number, dto: UpdateCategoryDto): Promise<ProductCategoryEntity> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        const category = await findInSiteOrFail(em, ProductCategoryEntity, site, id, 'Category', { lock: true });
        if (dto.attachmentIds !== undefined) {
          await this.media.assertAttachable(em, site, dto.attachmentIds, 'attachmentIds');
          category.attachmentIds = dto.attachmentIds;
        }
        if (dto.name !== undefined) category.name = dto.name;
        if (dto.description !== undefined) category.description = dto.description;
        if (dto.position !== undefined) category.position = dto.position;
        if (dto.slugPrefix !== undefined) category.slugPrefix = dto.slugPrefix;
        if (dto.slug !== undefined && dto.slug !== category.slug)
          category.slug = await this.slugFor(em, site, dto.slug, category.name, undefined, category.id);
        const saved = await this.save(em, category);
        await recordEvent(em, site, CATALOG_EVENTS.categoryUpdated, { id: saved.id, slug: saved.slug });
        return saved;
      }),
    );
  }

  /** Its products stay, without a category (the foreign key sets it null). */
  remove(site: SiteContext, id: number): Promise<void> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        const category = await findInSiteOrFail(em, ProductCategoryEntity, site, id, 'Category', { lock: true });
        await em.delete(ProductCategoryEntity, { id: category.id, siteId: site.id });
        await recordEvent(em, site, CATALOG_EVENTS.categoryDeleted, { id: category.id, slug: category.slug });
      }),
    );
  }

  /** A product's category must be one of the site's (400 naming the field otherwise); it cannot be deleted until `em` commits. */
  async assertInSite(em: EntityManager, site: SiteContext, id: number, field = 'categoryId'): Promise<void> {
    const found = await em.findOne(ProductCategoryEntity, {
      where: { id, siteId: site.id },
      select: { id: true },
      lock: { mode: 'for_key_share' },
    });
    if (!found) throw new ValidationProblem([{ path: field, message: `category ${id} does not exist in this site` }]);
  }

  private async save(em: EntityManager, category: ProductCategoryEntity): Promise<ProductCategoryEntity> {
    try {
      return await em.save(category);
    } catch (err) {
      if (isUniqueViolation(err, SLUG_KEY))
        throw new ConflictProblem('duplicate_slug', `The slug ${category.slug} is taken in this site`);
      throw err;
    }
  }

  /** An explicit slug must be free (409); one made from the name gets the next free `-N`. */
  private async slugFor(
    em: EntityManager,
    site: SiteContext,
    slug: string | undefined,
    name: string,
    prefix?: string,
    exceptId?: number,
  ): Promise<string> {
    const base = baseSlug({ slug, title: name, prefix: slug ? undefined : prefix, fallback: 'category' });
    const allocated = await allocateSlug(em, ProductCategoryEntity, site.id, base, {
      explicit: slug !== undefined,
      exceptId,
    });
    if (allocated === null) throw new ConflictProblem('duplicate_slug', `The slug ${base} is taken in this site`);
    return allocated;
  }
}
