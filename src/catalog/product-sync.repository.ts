import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../database/sql';
import type { ProcessorSyncState } from './entities/product.entity';

export type ProcessorMode = 'test' | 'live';

/** The processor's ids of one product or variant in one mode. */
export interface ProcessorIds {
  productId: string | null;
  priceId: string | null;
}

/**
 * The statements of the processor sync (docs/payments.md, "Catalog sync"). They write the sync's
 * own columns only, by hand: not the product's `version` nor `updated_at` (an entity save would
 * set it), since a sync is no change of the product.
 */
@Injectable()
export class ProductSyncRepository {
  /** Marks products of the site `pending` (keeping the last digest); answers the ids that exist. */
  async markPending(em: EntityManager, siteId: number, productIds: number[], at: Date): Promise<number[]> {
    if (productIds.length === 0) return [];
    const { rows } = await sql<{ id: number }>(
      em,
      `UPDATE products
          SET processor_sync = jsonb_build_object('status', 'pending', 'error', NULL, 'at', $3::text,
                                                  'digest', processor_sync->'digest')
        WHERE site_id = $1 AND id = ANY($2::bigint[])
        RETURNING id`,
      [siteId, productIds, at.toISOString()],
      { bigints: ['id'] },
    );
    return rows.map((r) => r.id);
  }

  /** Sets the sync state; answers whether the product exists. */
  async setState(em: EntityManager, siteId: number, productId: number, state: ProcessorSyncState): Promise<boolean> {
    const { rowCount } = await sql(
      em,
      `UPDATE products SET processor_sync = $3::jsonb WHERE site_id = $1 AND id = $2`,
      [siteId, productId, JSON.stringify(state)],
    );
    return rowCount > 0;
  }

  /** Like setState, keeping the digest of the last successful sync. */
  async setFailed(
    em: EntityManager,
    siteId: number,
    productId: number,
    failure: { error: string; at: Date; digest: string },
  ): Promise<boolean> {
    const { rowCount } = await sql(
      em,
      `UPDATE products
          SET processor_sync = jsonb_build_object('status', 'failed', 'error', $3::text, 'at', $4::text,
                                                  'digest', processor_sync->'digest', 'failedDigest', $5::text)
        WHERE site_id = $1 AND id = $2`,
      [siteId, productId, failure.error, failure.at.toISOString(), failure.digest],
    );
    return rowCount > 0;
  }

  /** The ids of a product (variantId null) or variant in `mode`. */
  async setIds(
    em: EntityManager,
    siteId: number,
    item: { productId: number; variantId: number | null },
    mode: ProcessorMode,
    ids: ProcessorIds,
  ): Promise<void> {
    // Column names from a closed set (the mode), never from input.
    const columns = mode === 'live' ? LIVE : TEST;
    const [table, id] = item.variantId === null ? ['products', item.productId] : ['product_variants', item.variantId];
    await sql(em, `UPDATE ${table} SET ${columns.product} = $3, ${columns.price} = $4 WHERE site_id = $1 AND id = $2`, [
      siteId,
      id,
      ids.productId,
      ids.priceId,
    ]);
  }

  /** One page of the site's products after `after`, by (position, id): the index of the lists. */
  async productsAfter(
    em: EntityManager,
    siteId: number,
    after: { position: number; id: number } | null,
    limit: number,
  ): Promise<Array<{ id: number; position: number }>> {
    const { rows } = await sql<{ id: number; position: number }>(
      em,
      `SELECT id, position FROM products
        WHERE site_id = $1 AND ($2::integer IS NULL OR (position, id) > ($2::integer, $3::bigint))
        ORDER BY position, id LIMIT $4`,
      [siteId, after?.position ?? null, after?.id ?? 0, limit],
      { bigints: ['id'] },
    );
    return rows;
  }
}

const TEST = { product: 'processor_product_id_test', price: 'processor_price_id_test' };
const LIVE = { product: 'processor_product_id_live', price: 'processor_price_id_live' };
