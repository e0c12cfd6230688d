import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { canSeeDrafts, Principal } from '../common/auth/principal';
import { visibility } from '../common/cache/site-read-cache';
import { ConflictProblem, NotFoundProblem, PreconditionFailedProblem } from '../common/errors/problems';
import { isUniqueViolation } from '../common/errors/postgres-errors';
import { ifMatchAllows, versionEtag } from '../common/http/etag';
import { recordEvent } from '../common/outbox/record-event';
import { Page } from '../common/pagination/page';
import { allocateSlug, baseSlug } from '../common/slugs/slugs';
import { findInSiteOrFail, SiteContext } from '../common/tenancy/site-context';
import { MediaService } from '../media/media.service';
import { CatalogRepository } from './catalog.repository';
import { CATALOG_EVENTS } from './catalog.events';
import { CategoriesService } from './categories.service';
import { CreateProductDto, ProductQueryDto, RecurringDto, UpdateProductDto } from './dto/product.dto';
import { CreateVariantDto, UpdateVariantDto } from './dto/variant.dto';
import { ProductEntity } from './entities/product.entity';
import { ProductVariantEntity } from './entities/product-variant.entity';
import { addVariant, checkOptions, saveVariant, variantOf, variantsIn } from './product-variants';
import { ProductSyncService } from './product-sync.service';
import { PublicCatalogCache } from './public-catalog.cache';

/** A product with its variants: what a get answers. */
export interface ProductView {
  product: ProductEntity;
  variants: ProductVariantEntity[];
}

export interface WriteOptions {
  /** API.md §6: the write happens only if this still matches the product's ETag. */
  ifMatch?: string;
}

const SLUG_KEY = 'products_site_id_slug_key';

/** Products and their variants (docs/catalog.md). */
@Injectable()
export class ProductsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: CatalogRepository,
    private readonly categories: CategoriesService,
    private readonly media: MediaService,
    private readonly cache: PublicCatalogCache,
    private readonly sync: ProductSyncService,
  ) {}

  /** Anonymous callers see published products; every read goes through the cache, keyed by who may see drafts. */
  list(site: SiteContext, principal: Principal, query: ProductQueryDto): Promise<Page<ProductEntity>> {
    const withDrafts = canSeeDrafts(principal);
    return this.cache.through(
      site.id,
      `${visibility(withDrafts)}:products:${JSON.stringify(query)}`,
      true,
      () => this.repository.listProducts(site, query, withDrafts),
      (page) => 256 + page.data.reduce((n, p) => n + 768 + p.description.length, 0),
    );
  }

  /** `idOrSlug`: all digits is an id; an anonymous caller's draft is a 404. */
  async get(site: SiteContext, principal: Principal, idOrSlug: string): Promise<ProductView> {
    const withDrafts = canSeeDrafts(principal);
    const view = await this.cache.through(
      site.id,
      `${visibility(withDrafts)}:product:${idOrSlug}`,
      true,
      async () => {
        const product = await this.repository.findProduct(site, idOrSlug, withDrafts);
        return product ? { product, variants: await this.repository.variantsOf(product.id) } : null;
      },
      (v) => 1024 + (v?.product.description.length ?? 0) + (v?.variants.length ?? 0) * 256,
    );
    if (!view) throw new NotFoundProblem('Product');
    return view;
  }

  /** A category's products with their variants (v1 nests them): every status, by position (at most 1,000). */
  async ofCategory(site: SiteContext, categoryId: number): Promise<ProductView[]> {
    const products = await this.repository.productsOfCategory(site, categoryId);
    const variants = await this.repository.variantsOfMany(products.map((p) => p.id));
    return products.map((product) => ({ product, variants: variants.get(product.id) ?? [] }));
  }

  create(site: SiteContext, dto: CreateProductDto): Promise<ProductView> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        await this.checkReferences(em, site, dto);
        const product = em.create(ProductEntity, {
          siteId: site.id,
          name: dto.name,
          slugPrefix: dto.slugPrefix ?? '',
          description: dto.description ?? '',
          status: dto.status ?? 'published',
          unitAmount: dto.unitAmount,
          currency: dto.currency,
          position: dto.position ?? 0,
          quantityAvailable: dto.quantityAvailable ?? null,
          categoryId: dto.categoryId ?? null,
          taxCode: dto.taxCode ?? null,
          taxBehavior: dto.taxBehavior ?? 'unspecified',
          ...recurringColumns(dto.recurring ?? null),
          option1: dto.option1 ?? null,
          option2: dto.option2 ?? null,
          option3: dto.option3 ?? null,
          processorDescription: dto.processorDescription ?? '',
          processorProductIdLive: dto.processorProductIdLive ?? null,
          processorProductIdTest: dto.processorProductIdTest ?? null,
          attachmentIds: dto.attachmentIds ?? [],
          version: 1,
          slug: await this.slugFor(em, site, dto.slug, dto.name, dto.slugPrefix),
        });
        const saved = await this.saveProduct(em, product);
        await recordEvent(em, site, CATALOG_EVENTS.productCreated, eventOf(saved));
        return { product: saved, variants: [] };
      }),
    );
  }

  update(site: SiteContext, id: number, dto: UpdateProductDto, options: WriteOptions = {}): Promise<ProductView> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        const product = await this.lockForWrite(em, site, id, options);
        const saved = await this.applyUpdate(em, site, product, dto);
        return { product: saved, variants: await variantsIn(em, saved.id) };
      }),
    );
  }

  private async applyUpdate(
    em: EntityManager,
    site: SiteContext,
    product: ProductEntity,
    dto: UpdateProductDto,
  ): Promise<ProductEntity> {
    await this.checkReferences(em, site, dto);
    if (dto.slug !== undefined && dto.slug !== product.slug)
      product.slug = await this.slugFor(em, site, dto.slug, product.name, undefined, product.id);
    assignDefined(product, {
      name: dto.name,
      slugPrefix: dto.slugPrefix,
      description: dto.description,
      status: dto.status,
      unitAmount: dto.unitAmount,
      currency: dto.currency,
      position: dto.position,
      quantityAvailable: dto.quantityAvailable,
      categoryId: dto.categoryId,
      taxCode: dto.taxCode,
      taxBehavior: dto.taxBehavior,
      option1: dto.option1,
      option2: dto.option2,
      option3: dto.option3,
      processorDescription: dto.processorDescription,
      processorProductIdLive: dto.processorProductIdLive,
      processorProductIdTest: dto.processorProductIdTest,
      attachmentIds: dto.attachmentIds,
    });
    if (dto.recurring !== undefined) Object.assign(product, recurringColumns(dto.recurring));
    product.version += 1;
    const saved = await this.saveProduct(em, product);
    await recordEvent(em, site, CATALOG_EVENTS.productUpdated, eventOf(saved));
    return saved;
  }

  /** Deletes the product and its variants; orders keep their own copy of what was sold. */
  remove(site: SiteContext, id: number, options: WriteOptions = {}): Promise<void> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        const product = await this.lockForWrite(em, site, id, options);
        await this.sync.retire(em, site, product.id, [product, ...(await variantsIn(em, product.id))]);
        await em.delete(ProductEntity, { id: product.id, siteId: site.id });
        await recordEvent(em, site, CATALOG_EVENTS.productDeleted, eventOf(product));
      }),
    );
  }

  createVariant(site: SiteContext, productId: number, dto: CreateVariantDto): Promise<ProductView> {
    return this.changeVariants(site, productId, (em, product) => addVariant(em, site, product, dto));
  }

  updateVariant(site: SiteContext, productId: number, variantId: number, dto: UpdateVariantDto): Promise<ProductView> {
    return this.changeVariants(site, productId, async (em, product) => {
      const variant = await variantOf(em, product, variantId);
      assignDefined(variant, {
        option1Value: dto.option1Value,
        option2Value: dto.option2Value,
        option3Value: dto.option3Value,
        unitAmount: dto.unitAmount,
        quantityAvailable: dto.quantityAvailable,
        sku: dto.sku,
        position: dto.position,
      });
      checkOptions(product, variant);
      await saveVariant(em, variant);
    });
  }

  removeVariant(site: SiteContext, productId: number, variantId: number): Promise<ProductView> {
    return this.changeVariants(site, productId, async (em, product) => {
      const variant = await variantOf(em, product, variantId);
      await this.sync.retire(em, site, product.id, [variant]);
      await em.delete(ProductVariantEntity, { id: variant.id });
    });
  }

  /**
   * A v1-style write (`PUT …/variant`): the product's fields and one new variant, in one
   * transaction, answering the product with its variants.
   */
  updateWithVariant(
    site: SiteContext,
    id: number,
    dto: UpdateProductDto,
    variant: CreateVariantDto,
  ): Promise<ProductView> {
    return this.changeVariants(site, id, async (em, product) => {
      const updated = await this.applyUpdate(em, site, product, dto);
      product.version = updated.version - 1; // changeVariants bumps it once more: one change, one version
      await addVariant(em, site, product, variant);
    });
  }

  /** Variants are part of their product: each change bumps its version (ETag) and says product.updated. */
  private changeVariants(
    site: SiteContext,
    productId: number,
    change: (em: EntityManager, product: ProductEntity) => Promise<void>,
  ): Promise<ProductView> {
    return this.cache.writing(site.id, () =>
      this.dataSource.transaction(async (em) => {
        const product = await findInSiteOrFail(em, ProductEntity, site, productId, 'Product', { lock: true });
        await change(em, product);
        product.version += 1;
        const saved = await em.save(product);
        await recordEvent(em, site, CATALOG_EVENTS.productUpdated, eventOf(saved));
        return { product: saved, variants: await variantsIn(em, saved.id) };
      }),
    );
  }

  private async lockForWrite(em: EntityManager, site: SiteContext, id: number, options: WriteOptions) {
    const product = await findInSiteOrFail(em, ProductEntity, site, id, 'Product', { lock: true });
    if (!ifMatchAllows(options.ifMatch, versionEtag(product.id, product.version)))
      throw new PreconditionFailedProblem('The product changed since it was read; read it again');
    return product;
  }

  private async checkReferences(
    em: EntityManager,
    site: SiteContext,
    dto: { categoryId?: number | null; attachmentIds?: number[] },
  ): Promise<void> {
    if (dto.categoryId !== undefined && dto.categoryId !== null)
      await this.categories.assertInSite(em, site, dto.categoryId);
    if (dto.attachmentIds !== undefined)
      await this.media.assertAttachable(em, site, dto.attachmentIds, 'attachmentIds');
  }

  private async saveProduct(em: EntityManager, product: ProductEntity): Promise<ProductEntity> {
    try {
      return await em.save(product);
    } catch (err) {
      if (isUniqueViolation(err, SLUG_KEY))
        throw new ConflictProblem('duplicate_slug', `The slug ${product.slug} is taken in this site`);
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
    const base = baseSlug({ slug, title: name, prefix: slug ? undefined : prefix, fallback: 'product' });
    const allocated = await allocateSlug(em, ProductEntity, site.id, base, { explicit: slug !== undefined, exceptId });
    if (allocated === null) throw new ConflictProblem('duplicate_slug', `The slug ${base} is taken in this site`);
    return allocated;
  }
}

function eventOf(p: ProductEntity) {
  return { id: p.id, slug: p.slug, status: p.status, version: p.version };
}

function recurringColumns(r: RecurringDto | null): Pick<ProductEntity, 'recurringInterval' | 'recurringIntervalCount'> {
  return { recurringInterval: r?.interval ?? null, recurringIntervalCount: r?.intervalCount ?? null };
}

/** Sets the fields that are not undefined (a PATCH: absent means unchanged; null clears). */
function assignDefined<T extends object>(target: T, values: Partial<T>): void {
  for (const [k, v] of Object.entries(values)) if (v !== undefined) (target as Record<string, unknown>)[k] = v;
}
