import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { Principal } from '../../common/auth/principal';
import { ConflictProblem } from '../../common/errors/problems';
import { QueueService } from '../../common/queue/queue.service';
import { SiteContext } from '../../common/tenancy/site-context';
import {
  ProcessorMode,
  ProductSyncService,
  RetiredItem,
  SyncOutcome,
  SyncSite,
} from '../../catalog/product-sync.service';
import { ProductsService, ProductView } from '../../catalog/products.service';
import { PaymentAccountsService } from '../payment-accounts.service';
import { describeStripeFailure } from '../stripe/stripe-clients';
import { digestOf, failureText, ItemSyncError, retireItem, syncItem } from './stripe-catalog';

export const CATALOG_SYNC_JOB = 'payments.catalog-sync';
export const CATALOG_SITE_SYNC_JOB = 'payments.catalog-site-sync';
export const CATALOG_RETIRE_JOB = 'payments.catalog-retire';

/** Tries of a product's sync job after its first (pg-boss, with backoff from 5 s: about 2.5 minutes). */
export const CATALOG_SYNC_RETRIES = 5;

export interface CatalogSyncJobData {
  siteId: number;
  accountId: number;
  productId: number;
  /** A re-drive (its own token): sync even when nothing changed since the last try. */
  redrive?: string | null;
}

export interface CatalogSiteSyncJobData {
  siteId: number;
  accountId: number;
  /** Where the sweep goes on from (position, id). */
  after?: { position: number; id: number } | null;
}

export interface CatalogRetireJobData {
  siteId: number;
  items: RetiredItem[];
}

const SITE_PAGE = 200;
const siteOf = (d: { siteId: number; accountId: number }): SyncSite => ({ id: d.siteId, accountId: d.accountId });

/**
 * The catalog sync to Stripe (docs/payments.md, "Catalog sync"): a product write queues it (the
 * subscriber, in the outbox relay's transaction); the job reads the product as it is now and makes
 * each mode's Stripe match it, then records the ids and `processorSync` through the catalog.
 */
@Injectable()
export class CatalogSyncService {
  private readonly logger = new Logger('CatalogSync');

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: QueueService,
    private readonly accounts: PaymentAccountsService,
    private readonly catalog: ProductSyncService,
    private readonly products: ProductsService,
  ) {}

  /**
   * Marks the product `pending` and queues its sync, in the caller's transaction. One job runs per
   * product at a time; changes arriving meanwhile queue one follow-up (the queue is `stately`).
   */
  async queueProduct(
    em: EntityManager,
    site: SyncSite,
    productId: number,
    redrive: string | null = null,
  ): Promise<void> {
    if ((await this.catalog.markPending(em, site, [productId])).length === 0) return;
    const data: CatalogSyncJobData = { siteId: site.id, accountId: site.accountId, productId, redrive };
    await this.queue.send(CATALOG_SYNC_JOB, data, { em, singletonKey: `${site.id}:${productId}` });
  }

  /**
   * A product write of a connected site (`product.created` / `product.updated`): queued unless
   * Stripe already has it as it is (stock taken by an order changes nothing there), or it failed
   * as it is (a re-drive or a change tries again).
   */
  async productChanged(em: EntityManager, site: SyncSite, productId: number, modes: ProcessorMode[]): Promise<void> {
    const product = await this.catalog.forSync(site, productId, em);
    if (!product) return;
    const digest = digestOf(product, modes);
    if (product.sync?.status === 'synced' && product.sync.digest === digest) return;
    if (product.sync?.status === 'failed' && product.sync.failedDigest === digest) return;
    await this.queueProduct(em, site, productId);
  }

  /** POST …/products/{id}/processor-sync: queues the product's sync again; 409 for a site without Stripe. */
  async redrive(site: SiteContext, principal: Principal, productId: number): Promise<ProductView> {
    await this.dataSource.transaction(async (em) => {
      await this.catalog.assertInSite(em, site, productId);
      if ((await this.accounts.modesOf(site.id, em)).length === 0)
        throw new ConflictProblem(
          'processor_not_connected',
          'The site is not connected to Stripe: connect it (PUT …/payments/stripe) and its products sync',
        );
      await this.queueProduct(em, site, productId, randomBytes(6).toString('base64url'));
    });
    return this.products.get(site, principal, String(productId));
  }

  /** The job: one product, every mode with keys. A transient failure throws (pg-boss retries it). */
  async sync(data: CatalogSyncJobData, retryCount: number): Promise<void> {
    const site = siteOf(data);
    const modes = await this.accounts.modesOf(site.id);
    if (modes.length === 0) return; // disconnected since: nothing to sync to
    const product = await this.catalog.forSync(site, data.productId);
    if (!product) return; // deleted: its objects were retired by the delete
    const digest = digestOf(product, modes);
    if (!data.redrive && product.sync?.status !== 'failed' && product.sync?.digest === digest) {
      await this.catalog.recordSynced(site, product.id, { version: product.version, digest, items: [] });
      return;
    }
    const outcome: SyncOutcome = { version: product.version, digest: null, items: [] };
    try {
      for (const mode of modes) {
        const stripe = (await this.accounts.stripeOf(site.id, mode))?.stripe;
        if (!stripe) continue;
        for (const item of product.items) {
          const before = item.ids[mode];
          const after = await syncItem(stripe, site.id, product, item, mode, data.redrive ?? undefined).catch(
            (err: unknown) => {
              throw new ItemSyncError(describeStripeFailure(err), item.variantId, mode);
            },
          );
          outcome.items.push({ variantId: item.variantId, mode, before, after });
        }
      }
    } catch (err) {
      // What Stripe made before the failure is kept, so no later try makes it again.
      await this.finish(site, product.id, outcome);
      if (!(err instanceof ItemSyncError)) throw err;
      if (err.failure.transient && retryCount < CATALOG_SYNC_RETRIES) throw err;
      const error = failureText(err.failure, err.mode);
      this.logger.warn({ siteId: site.id, productId: product.id, mode: err.mode, error }, 'Catalog sync failed');
      await this.catalog.recordFailed(site, product.id, { variantId: err.variantId, mode: err.mode, error, digest });
      return;
    }
    const synced = { ...product, items: product.items.map((i) => ({ ...i, ids: { ...i.ids } })) };
    for (const o of outcome.items) synced.items.find((i) => i.variantId === o.variantId)!.ids[o.mode] = o.after;
    await this.finish(site, product.id, { ...outcome, digest: digestOf(synced, modes) });
  }

  /** Records the outcome; objects whose product or variant went meanwhile are deactivated. */
  private async finish(site: SyncSite, productId: number, outcome: SyncOutcome): Promise<void> {
    if (outcome.items.length === 0 && outcome.digest === null) return;
    const gone = await this.catalog.recordSynced(site, productId, outcome);
    if (gone.length) await this.retire({ siteId: site.id, items: gone });
  }

  /**
   * The sync of every product of a site (connected, or a mode added): a page at a time, each
   * product marked `pending` and queued, then the next page queued.
   */
  async syncSite(data: CatalogSiteSyncJobData): Promise<void> {
    const site = siteOf(data);
    if ((await this.accounts.modesOf(site.id)).length === 0) return;
    const page = await this.catalog.productsAfter(site, data.after ?? null, SITE_PAGE);
    await this.dataSource.transaction(async (em) => {
      for (const p of page) await this.queueProduct(em, site, p.id);
      if (page.length === SITE_PAGE) {
        const last = page[page.length - 1];
        await this.queueSite(em, site, { position: last.position, id: last.id });
      }
    });
  }

  async queueSite(em: EntityManager, site: SyncSite, after: CatalogSiteSyncJobData['after'] = null): Promise<void> {
    const data: CatalogSiteSyncJobData = { siteId: site.id, accountId: site.accountId, after };
    await this.queue.send(CATALOG_SITE_SYNC_JOB, data, { em, singletonKey: String(site.id) });
  }

  /** A deleted product's or variant's objects, queued in the deleting transaction (connected sites only). */
  async queueRetire(em: EntityManager, site: SyncSite, items: RetiredItem[]): Promise<void> {
    if ((await this.accounts.modesOf(site.id, em)).length === 0) return;
    const data: CatalogRetireJobData = { siteId: site.id, items };
    await this.queue.send(CATALOG_RETIRE_JOB, data, { em });
  }

  /** The retire job: each object deactivated in its mode; a mode without keys any more is skipped. */
  async retire(data: CatalogRetireJobData): Promise<void> {
    for (const item of data.items) {
      const stripe = (await this.accounts.stripeOf(data.siteId, item.mode))?.stripe;
      if (!stripe) continue;
      try {
        await retireItem(stripe, data.siteId, item);
      } catch (err) {
        const failure = describeStripeFailure(err);
        if (failure.transient) throw err;
        // Nothing left in Sitebase to show it on: logged for the operator.
        this.logger.warn({ siteId: data.siteId, item, error: failureText(failure, item.mode) }, 'Retire failed');
      }
    }
  }
}
