import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { namedXactLock, sql } from '../database/sql';
import type { HeldItem } from './order-holds';

/**
 * A site user's holds (docs/orders.md, "Reservations"): their lock, the count of their pending
 * orders (the cap) and what they hold or held by item (the hold limits, the cool-down), read by
 * the partial index orders_site_id_user_id_expires_at_idx.
 */
@Injectable()
export class OrderHoldsRepository {
  /**
   * A site user's unpaid open orders that still hold their stock (not past their hold), counted
   * after taking the user's lock: two orders of one user at once take turns here, so the cap
   * holds under concurrency. The lock is the transaction's (released at its end).
   */
  async lockAndCountPending(em: EntityManager, siteId: number, userId: number, now: Date): Promise<number> {
    await namedXactLock(em, `orders.pending:${userId}`);
    const { rows } = await sql<{ n: number }>(
      em,
      // Two ranges of orders_site_id_user_id_expires_at_idx: a hold that ends later, or none.
      `SELECT ((SELECT count(*) FROM orders
                 WHERE site_id = $1 AND user_id = $2 AND payment_status = 'pending' AND expires_at > $3
                   AND fulfillment_status IN ('unfulfilled', 'partially_fulfilled'))
             + (SELECT count(*) FROM orders
                 WHERE site_id = $1 AND user_id = $2 AND payment_status = 'pending' AND expires_at IS NULL
                   AND fulfillment_status IN ('unfulfilled', 'partially_fulfilled')))::int AS n`,
      [siteId, userId, now],
    );
    return rows[0].n;
  }

  /**
   * What a site user holds, by item (docs/orders.md, "Reservations"), read after their lock
   * (lockAndCountPending): the units not yet shipped of their unpaid open orders still in hold,
   * and the latest end of a hold of theirs that expired unpaid in (`since`, `now`] (an order
   * canceled by its expiry keeps `expires_at`; a site's cancel clears it). By
   * orders_site_id_user_id_expires_at_idx: a user's unpaid orders that hold, or held, stock.
   */
  async heldBy(em: EntityManager, siteId: number, userId: number, now: Date, since: Date): Promise<HeldItem[]> {
    const { rows } = await sql<{
      product_id: number;
      variant_id: number | null;
      held: number;
      expired_at: Date | null;
    }>(
      em,
      // Two ranges of the index: orders whose hold ends after `since` (in hold, or expired since),
      // and those in hold without an end (shipped in part before payment).
      `WITH mine AS (
         SELECT id, fulfillment_status, expires_at FROM orders
          WHERE site_id = $1 AND user_id = $2 AND payment_status = 'pending' AND expires_at > $4
            AND fulfillment_status IN ('unfulfilled', 'partially_fulfilled', 'canceled')
         UNION ALL
         SELECT id, fulfillment_status, expires_at FROM orders
          WHERE site_id = $1 AND user_id = $2 AND payment_status = 'pending' AND expires_at IS NULL
            AND fulfillment_status IN ('unfulfilled', 'partially_fulfilled')
       )
       SELECT l.product_id, l.variant_id,
              coalesce(sum(l.quantity - l.fulfilled_quantity)
                FILTER (WHERE o.fulfillment_status <> 'canceled' AND (o.expires_at IS NULL OR o.expires_at > $3)), 0)::int
                AS held,
              max(o.expires_at) FILTER (WHERE o.expires_at <= $3) AS expired_at
         FROM mine o JOIN order_lines l ON l.order_id = o.id
        GROUP BY l.product_id, l.variant_id`,
      [siteId, userId, now, since],
      { bigints: ['product_id', 'variant_id'] },
    );
    return rows.map((r) => ({
      productId: r.product_id,
      variantId: r.variant_id,
      held: r.held,
      expiredAt: r.expired_at,
    }));
  }
}
