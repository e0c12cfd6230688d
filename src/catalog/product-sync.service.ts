import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { NotFoundProblem } from '../common/errors/problems';
import { EventScope, recordEvent } from '../common/outbox/record-event';
import { Clock } from '../common/scheduling/clock';
import { CATALOG_EVENTS } from './catalog.events';
import { ProcessorSyncState, ProductEntity, RecurringInterval, TaxBehavior } from './entities/product.entity';
import { ProductVariantEntity } from './entities/product-variant.entity';
import { variantsIn } from './product-variants';
import { ProcessorIds, ProcessorMode, ProductSyncRepository } from './product-sync.repository';
import { PublicCatalogCache } from './public-catalog.cache';

export type { ProcessorIds, ProcessorMode } from './product-sync.repository';

/** The site a sync works for: a job has its id and account, not its name. */
export type SyncSite = Required<EventScope> & { id: number };

/** One thing the processor sells: the product itself (variantId null) or one of its variants. */
export interface SyncItem {
  variantId: number | null;
  /** The product's name, a variant's with its values (`Mug (M / Blue)`). */
  name: string;
  /** What the processor shows: `processorDescription`, else the description ('' for none). */
  description: string;
  unitAmount: number;
  ids: Record<ProcessorMode, ProcessorIds>;
}

/** A product as the processor sync needs it, read in one go. */
export interface ProductForSync {
  id: number;
  version: number;
  /** Published: for sale (an archived or draft product is inactive at the processor). */
  active: boolean;
  currency: string;
  taxBehavior: TaxBehavior;
  recurring: { interval: RecurringInterval; intervalCount: number } | null;
  /** The product first, then its variants in their order. */
  items: SyncItem[];
  sync: ProcessorSyncState | null;
}

/** What one sync of a product made the processor hold, per item and mode. */
export interface SyncOutcome {
  /** The version the sync read. */
  version: number;
  /** Digest of what was synced (kept to skip a change the processor does not see); null: a partial sync (ids only). */
  digest: string | null;
  items: Array<{ variantId: number | null; mode: ProcessorMode; before: ProcessorIds; after: ProcessorIds }>;
}

/** Processor objects of a product or variant that is gone (deleted): to deactivate. */
export interface RetiredItem {
  productId: number;
  variantId: number | null;
  mode: ProcessorMode;
  ids: ProcessorIds;
}

/** Hears, in the deleting transaction, of processor objects whose product or variant is deleted. */
export type RetiredListener = (em: EntityManager, site: SyncSite, retired: RetiredItem[]) => Promise<void>;

const MODES: ProcessorMode[] = ['test', 'live'];
const idsOf = (row: ProductEntity | ProductVariantEntity, mode: ProcessorMode): ProcessorIds =>
  mode === 'live'
    ? { productId: row.processorProductIdLive, priceId: row.processorPriceIdLive }
    : { productId: row.processorProductIdTest, priceId: row.processorPriceIdTest };

/**
 * The catalog's side of the processor sync (docs/payments.md, "Catalog sync"): what the payments
 * module reads of a product to sync it, and where it records the outcome. The sync's writes set
 * only its own columns: no `version` bump, no `product.updated` (which would sync again).
 */
@Injectable()
export class ProductSyncService {
  private readonly retiredListeners: RetiredListener[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: ProductSyncRepository,
    private readonly cache: PublicCatalogCache,
    private readonly clock: Clock,
  ) {}

  /** The product with its variants as the sync sees them; null when it is gone. */
  async forSync(
    site: { id: number },
    productId: number,
    em: EntityManager = this.dataSource.manager,
  ): Promise<ProductForSync | null> {
    const product = await em.findOne(ProductEntity, { where: { id: productId, siteId: site.id } });
    if (!product) return null;
    const variants = await variantsIn(em, product.id);
    const description = product.processorDescription || product.description;
    const item = (
      row: ProductEntity | ProductVariantEntity,
      variantId: number | null,
      name: string,
      amount: number,
    ) => ({
      variantId,
      name,
      description,
      unitAmount: amount,
      ids: { test: idsOf(row, 'test'), live: idsOf(row, 'live') },
    });
    return {
      id: product.id,
      version: product.version,
      active: product.status === 'published',
      currency: product.currency,
      taxBehavior: product.taxBehavior,
      recurring:
        product.recurringInterval && product.recurringIntervalCount
          ? { interval: product.recurringInterval, intervalCount: product.recurringIntervalCount }
          : null,
      items: [
        item(product, null, product.name, product.unitAmount),
        ...variants.map((v) => {
          const values = [v.option1Value, v.option2Value, v.option3Value].filter((x) => x);
          return item(v, v.id, `${product.name} (${values.join(' / ')})`, v.unitAmount ?? product.unitAmount);
        }),
      ],
      sync: product.processorSync,
    };
  }

  /** A product of the site or 404 (the re-drive route's check, in its transaction). */
  async assertInSite(em: EntityManager, site: { id: number }, productId: number): Promise<void> {
    if (!(await em.exists(ProductEntity, { where: { id: productId, siteId: site.id } })))
      throw new NotFoundProblem('Product');
  }

  /** Marks products `pending` in the caller's transaction; answers those that exist. */
  async markPending(em: EntityManager, site: { id: number }, productIds: number[]): Promise<number[]> {
    const ids = await this.repository.markPending(em, site.id, productIds, this.clock.now());
    if (ids.length) this.cache.invalidate(site.id);
    return ids;
  }

  /** A page of the site's product ids (the sync of a whole site), by position then id. */
  productsAfter(
    site: { id: number },
    after: { position: number; id: number } | null,
    limit: number,
  ): Promise<Array<{ id: number; position: number }>> {
    return this.repository.productsAfter(this.dataSource.manager, site.id, after, limit);
  }

  /**
   * Records what a sync made the processor hold. An id is written where the row still has the
   * one the sync read (an operator's id typed meanwhile wins; the follow-up sync uses it); the
   * product is `synced` only when the version synced is still current (else a follow-up job is
   * queued and it stays `pending`). Answers what has no row any more (a product or variant
   * deleted while the sync ran): the caller deactivates it.
   */
  recordSynced(site: SyncSite, productId: number, outcome: SyncOutcome): Promise<RetiredItem[]> {
    return this.dataSource.transaction(async (em) => {
      const product = await em.findOne(ProductEntity, {
        where: { id: productId, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      const gone = (o: SyncOutcome['items'][number]): RetiredItem => ({
        productId,
        variantId: o.variantId,
        mode: o.mode,
        ids: o.after,
      });
      if (!product) return outcome.items.map(gone);
      const variants = new Map((await variantsIn(em, product.id)).map((v) => [v.id, v]));
      const retired: RetiredItem[] = [];
      for (const o of outcome.items) {
        const row = o.variantId === null ? product : variants.get(o.variantId);
        if (!row) {
          retired.push(gone(o));
          continue;
        }
        const now = idsOf(row, o.mode);
        if (now.productId !== o.before.productId) continue;
        const priceId = now.priceId === o.before.priceId ? o.after.priceId : now.priceId;
        if (now.productId !== o.after.productId || now.priceId !== priceId)
          await this.repository.setIds(em, site.id, { productId, variantId: o.variantId }, o.mode, {
            productId: o.after.productId,
            priceId,
          });
      }
      if (outcome.digest !== null && product.version === outcome.version)
        await this.repository.setState(em, site.id, productId, {
          status: 'synced',
          error: null,
          at: this.clock.now().toISOString(),
          digest: outcome.digest,
        });
      this.cache.invalidate(site.id);
      return retired;
    });
  }

  /**
   * A sync that failed for good (Stripe refused, or retries ran out): `failed` with the
   * processor's answer, and `product.processor_sync_failed` for operators (webhooks). Nothing
   * when the product is gone.
   */
  async recordFailed(
    site: SyncSite,
    productId: number,
    failure: { variantId: number | null; mode: ProcessorMode; error: string; digest: string },
  ): Promise<void> {
    const { digest, ...payload } = failure;
    await this.dataSource.transaction(async (em) => {
      const at = this.clock.now();
      if (!(await this.repository.setFailed(em, site.id, productId, { error: failure.error, at, digest }))) return;
      await recordEvent(em, site, CATALOG_EVENTS.productProcessorSyncFailed, { id: productId, ...payload });
    });
    this.cache.invalidate(site.id);
  }

  /** The payments module listens for processor objects left without a product (deleted). */
  onRetired(listener: RetiredListener): void {
    this.retiredListeners.push(listener);
  }

  /**
   * Called by the catalog's deletes, in their transaction, with the rows about to go: a deleted
   * product's own row and its variants', or one deleted variant's.
   */
  async retire(
    em: EntityManager,
    site: SyncSite,
    productId: number,
    rows: Array<ProductEntity | ProductVariantEntity>,
  ): Promise<void> {
    const retired: RetiredItem[] = [];
    for (const mode of MODES)
      for (const row of rows) {
        const ids = idsOf(row, mode);
        const variantId = row instanceof ProductVariantEntity ? row.id : null;
        if (ids.productId || ids.priceId) retired.push({ productId, variantId, mode, ids });
      }
    if (retired.length === 0) return;
    for (const listener of this.retiredListeners) await listener(em, site, retired);
  }
}
