import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  KeysetShape,
  keysetShape,
  Page,
} from '../common/pagination/page';
import { SiteContext } from '../common/tenancy/site-context';
import { ShapedReads } from '../database/fast-read';
import { sql } from '../database/sql';
import { CategoryQueryDto } from './dto/category.dto';
import { ProductQueryDto } from './dto/product.dto';
import { ProductCategoryEntity } from './entities/product-category.entity';
import { PRODUCT_SEARCH_EXPRESSION, ProductEntity } from './entities/product.entity';
import { ProductVariantEntity } from './entities/product-variant.entity';

/** Lists go by position, then id (v1 `order`), both ascending. */
const BY_POSITION: KeysetColumn[] = [
  { expr: 'x.position', type: 'number' },
  { expr: 'x.id', type: 'number' },
];

/**
 * What selects a product list's SQL: each filter present or not (in and out of stock, recurring
 * or one-off, are two conditions each), and the page.
 */
interface ProductListShape extends KeysetShape {
  status: boolean;
  category: boolean;
  minAmount: boolean;
  maxAmount: boolean;
  currency: boolean;
  inStock: boolean | null;
  recurring: boolean | null;
  q: boolean;
}

/** One unit of stock to take or give back: a product, or one of its variants. */
export interface StockLine {
  productId: number;
  variantId: number | null;
  quantity: number;
}

/**
 * The catalog's reads on the fast path (docs/performance.md) and the statements that outgrow a
 * method: stock taken in one conditional UPDATE per line, media ids removed in one statement.
 */
@Injectable()
export class CatalogRepository {
  private readonly categoryList = new ShapedReads<ProductCategoryEntity>();
  private readonly categoryOne = new ShapedReads<ProductCategoryEntity>();
  private readonly productList = new ShapedReads<ProductEntity>();
  private readonly productOne = new ShapedReads<ProductEntity>();
  private readonly categoryProducts = new ShapedReads<ProductEntity>();
  private readonly productVariants = new ShapedReads<ProductVariantEntity>();
  private readonly productsVariants = new ShapedReads<ProductVariantEntity>();

  constructor(
    @InjectRepository(ProductCategoryEntity) private readonly categories: Repository<ProductCategoryEntity>,
    @InjectRepository(ProductEntity) private readonly products: Repository<ProductEntity>,
    @InjectRepository(ProductVariantEntity) private readonly variants: Repository<ProductVariantEntity>,
  ) {}

  async listCategories(site: SiteContext, query: CategoryQueryDto): Promise<Page<ProductCategoryEntity>> {
    const params = { siteId: site.id, ...keysetParameters(BY_POSITION, query) };
    const { entities } = await this.categoryList.read(keysetShape(query), params, (s) =>
      applyKeysetShape(this.categories.createQueryBuilder('x').where('x.site_id = :siteId'), BY_POSITION, s, 'ASC'),
    );
    return keysetPage(entities, query.limit, (c) => [c.position, c.id]);
  }

  async findCategory(site: SiteContext, id: number): Promise<ProductCategoryEntity | undefined> {
    const { entities } = await this.categoryOne.read({}, { siteId: site.id, id }, () =>
      this.categories.createQueryBuilder('x').where('x.site_id = :siteId').andWhere('x.id = :id').limit(1),
    );
    return entities[0];
  }

  /**
   * Indexes: (site_id, position, id) for a key's list, (site_id, status, position, id) for the
   * published list, (category_id, position, id) for a category's; the words of `q` use the GIN
   * expression index. Price and stock filters narrow what those scans read.
   */
  async listProducts(site: SiteContext, query: ProductQueryDto, withDrafts: boolean): Promise<Page<ProductEntity>> {
    const status = withDrafts ? query.status : 'published';
    if (!withDrafts && query.status !== undefined && query.status !== 'published')
      return keysetPage([], query.limit, () => []);
    const params = {
      siteId: site.id,
      status,
      categoryId: query.categoryId,
      minAmount: query.minAmount,
      maxAmount: query.maxAmount,
      currency: query.currency,
      q: query.q,
      ...keysetParameters(BY_POSITION, query),
    };
    const shape: ProductListShape = {
      ...keysetShape(query),
      status: status !== undefined,
      category: query.categoryId !== undefined,
      minAmount: query.minAmount !== undefined,
      maxAmount: query.maxAmount !== undefined,
      currency: query.currency !== undefined,
      inStock: query.inStock ?? null,
      recurring: query.recurring ?? null,
      q: Boolean(query.q),
    };
    const { entities } = await this.productList.read(shape, params, (s) => {
      const qb = this.products.createQueryBuilder('x').where('x.site_id = :siteId');
      if (s.status) qb.andWhere('x.status = :status');
      if (s.category) qb.andWhere('x.category_id = :categoryId');
      if (s.minAmount) qb.andWhere('x.unit_amount >= :minAmount');
      if (s.maxAmount) qb.andWhere('x.unit_amount <= :maxAmount');
      if (s.currency) qb.andWhere('x.currency = :currency');
      if (s.inStock === true) qb.andWhere('(x.quantity_available IS NULL OR x.quantity_available > 0)');
      if (s.inStock === false) qb.andWhere('x.quantity_available = 0');
      if (s.recurring === true) qb.andWhere('x.recurring_interval IS NOT NULL');
      if (s.recurring === false) qb.andWhere('x.recurring_interval IS NULL');
      if (s.q) qb.andWhere(`${PRODUCT_SEARCH_EXPRESSION} @@ websearch_to_tsquery('simple', :q)`);
      return applyKeysetShape(qb, BY_POSITION, s, 'ASC');
    });
    return keysetPage(entities, query.limit, (p) => [p.position, p.id]);
  }

  /** All digits is an id, anything else a slug. */
  async findProduct(site: SiteContext, idOrSlug: string | number, withDrafts: boolean): Promise<ProductEntity | null> {
    const byId = typeof idOrSlug === 'number' || /^\d+$/.test(idOrSlug);
    const id = byId ? Number(idOrSlug) : undefined;
    if (byId && !Number.isSafeInteger(id)) return null;
    const { entities } = await this.productOne.read(
      { byId, withDrafts },
      { siteId: site.id, id, slug: idOrSlug },
      (s) => {
        const qb = this.products.createQueryBuilder('x').where('x.site_id = :siteId').limit(1);
        qb.andWhere(s.byId ? 'x.id = :id' : 'x.slug = :slug');
        if (!s.withDrafts) qb.andWhere("x.status = 'published'");
        return qb;
      },
    );
    return entities[0] ?? null;
  }

  /** The variants of one product, by position then id. */
  async variantsOf(productId: number): Promise<ProductVariantEntity[]> {
    const { entities } = await this.productVariants.read({}, { productId }, () =>
      this.variants
        .createQueryBuilder('x')
        .where('x.product_id = :productId')
        .orderBy('x.position', 'ASC')
        .addOrderBy('x.id', 'ASC'),
    );
    return entities;
  }

  /** The variants of several products, grouped by product (v1 categories nest them). */
  async variantsOfMany(productIds: number[]): Promise<Map<number, ProductVariantEntity[]>> {
    const byProduct = new Map<number, ProductVariantEntity[]>(productIds.map((id) => [id, []]));
    if (productIds.length === 0) return byProduct;
    const { entities } = await this.productsVariants.read({}, { ids: productIds }, () =>
      this.variants
        .createQueryBuilder('x')
        .where('x.product_id = ANY(:ids)')
        .orderBy('x.product_id', 'ASC')
        .addOrderBy('x.position', 'ASC')
        .addOrderBy('x.id', 'ASC'),
    );
    for (const v of entities) byProduct.get(v.productId)?.push(v);
    return byProduct;
  }

  /** A category's products as v1 nests them: every status a key may see, by position. */
  async productsOfCategory(site: SiteContext, categoryId: number): Promise<ProductEntity[]> {
    const { entities } = await this.categoryProducts.read({}, { siteId: site.id, categoryId }, () =>
      this.products
        .createQueryBuilder('x')
        .where('x.site_id = :siteId')
        .andWhere('x.category_id = :categoryId')
        .orderBy('x.position', 'ASC')
        .addOrderBy('x.id', 'ASC')
        .limit(1000),
    );
    return entities;
  }

  /**
   * Takes stock for an order, in its transaction: one conditional UPDATE per line, which waits
   * for (and then sees) any other order's, so concurrent orders never sell more than there is.
   * Lines are taken in (product, variant) order, so two orders lock rows in the same order and
   * cannot deadlock. Answers the first line that lacks stock, or null when all were taken.
   */
  async takeStock(em: EntityManager, siteId: number, lines: StockLine[]): Promise<StockLine | null> {
    for (const line of [...lines].sort(stockOrder)) {
      const { rowCount } = await sql(
        em,
        line.variantId === null
          ? `UPDATE products SET quantity_available = quantity_available - $3, version = version + 1, updated_at = now()
              WHERE id = $2 AND site_id = $1 AND quantity_available IS NOT NULL AND quantity_available >= $3`
          : `UPDATE product_variants SET quantity_available = quantity_available - $3, updated_at = now()
              WHERE id = $2 AND site_id = $1 AND quantity_available IS NOT NULL AND quantity_available >= $3`,
        [siteId, line.variantId ?? line.productId, line.quantity],
      );
      if (rowCount === 1) continue;
      // Unlimited stock takes nothing; anything else lacks it.
      const unlimited = await sql<{ unlimited: boolean }>(
        em,
        line.variantId === null
          ? 'SELECT quantity_available IS NULL AS unlimited FROM products WHERE id = $1'
          : 'SELECT quantity_available IS NULL AS unlimited FROM product_variants WHERE id = $1',
        [line.variantId ?? line.productId],
      );
      if (!unlimited.rows[0]?.unlimited) return line;
    }
    return null;
  }

  /**
   * Of these items, those of the site whose stock is counted (`quantity_available` not null), in
   * one statement by primary keys: a product without a variant, a variant by its own id.
   */
  async countedStock(
    em: EntityManager,
    siteId: number,
    items: Array<{ productId: number; variantId: number | null }>,
  ): Promise<Array<{ productId: number; variantId: number | null }>> {
    if (items.length === 0) return [];
    const productIds = items.filter((i) => i.variantId === null).map((i) => i.productId);
    const variantIds = items.flatMap((i) => (i.variantId === null ? [] : [i.variantId]));
    const { rows } = await sql<{ product_id: number; variant_id: number | null }>(
      em,
      `SELECT id AS product_id, NULL::bigint AS variant_id FROM products
        WHERE site_id = $1 AND id = ANY($2::bigint[]) AND quantity_available IS NOT NULL
       UNION ALL
       SELECT product_id, id FROM product_variants
        WHERE site_id = $1 AND id = ANY($3::bigint[]) AND quantity_available IS NOT NULL`,
      [siteId, productIds, variantIds],
      { bigints: ['product_id', 'variant_id'] },
    );
    return rows.map((r) => ({ productId: r.product_id, variantId: r.variant_id }));
  }

  /** Gives stock back (a canceled order); unlimited stock stays unlimited. */
  async restoreStock(em: EntityManager, siteId: number, lines: StockLine[]): Promise<void> {
    for (const line of [...lines].sort(stockOrder)) {
      await sql(
        em,
        line.variantId === null
          ? `UPDATE products SET quantity_available = quantity_available + $3, version = version + 1, updated_at = now()
              WHERE id = $2 AND site_id = $1 AND quantity_available IS NOT NULL`
          : `UPDATE product_variants SET quantity_available = quantity_available + $3, updated_at = now()
              WHERE id = $2 AND site_id = $1 AND quantity_available IS NOT NULL`,
        [siteId, line.variantId ?? line.productId, line.quantity],
      );
    }
  }

  /** Takes deleted media ids out of the site's products and categories; answers the products changed. */
  async removeAttachments(
    em: EntityManager,
    siteId: number,
    mediaIds: number[],
  ): Promise<Array<{ id: number; slug: string; status: ProductEntity['status']; version: number }>> {
    await sql(
      em,
      `UPDATE product_categories SET updated_at = now(),
         attachment_ids = ARRAY(SELECT a FROM unnest(attachment_ids) WITH ORDINALITY AS t(a, n)
                                WHERE a <> ALL($2::bigint[]) ORDER BY n)
       WHERE site_id = $1 AND attachment_ids && $2::bigint[]`,
      [siteId, mediaIds],
    );
    const { rows } = await sql<{ id: number; slug: string; status: ProductEntity['status']; version: number }>(
      em,
      `UPDATE products SET updated_at = now(), version = version + 1,
         attachment_ids = ARRAY(SELECT a FROM unnest(attachment_ids) WITH ORDINALITY AS t(a, n)
                                WHERE a <> ALL($2::bigint[]) ORDER BY n)
       WHERE site_id = $1 AND attachment_ids && $2::bigint[]
       RETURNING id, slug, status, version`,
      [siteId, mediaIds],
      { bigints: ['id'] },
    );
    return rows;
  }
}

function stockOrder(a: StockLine, b: StockLine): number {
  return a.productId - b.productId || (a.variantId ?? 0) - (b.variantId ?? 0);
}
