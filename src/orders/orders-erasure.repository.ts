import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../database/sql';

/** Orders kept for accounting without their customer: an account's deletion, a site user's erasure. */
@Injectable()
export class OrdersErasureRepository {
  /**
   * Account deletion: the account's orders lose their customer (email, name,
   * phone, address) and metadata; amounts, statuses and line snapshots stay, for accounting.
   * Shipments lose their tracking (it identifies the parcel and so its recipient). Runs again
   * after a crash without touching what it already did.
   */
  async anonymise(em: EntityManager, accountId: number): Promise<number> {
    return this.anonymiseWhere(em, 'account_id = $1', [accountId]);
  }

  /** A site user's erasure: the orders they placed signed in, or under their address. */
  anonymiseCustomer(em: EntityManager, siteId: number, userId: number, email: string): Promise<number> {
    return this.anonymiseWhere(em, 'site_id = $1 AND (user_id = $2 OR customer_email = $3)', [siteId, userId, email]);
  }

  async countCustomer(em: EntityManager, siteId: number, userId: number, email: string): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      em,
      `SELECT count(*)::int AS n FROM orders
        WHERE site_id = $1 AND (user_id = $2 OR customer_email = $3) AND anonymised_at IS NULL`,
      [siteId, userId, email],
    );
    return rows[0].n;
  }

  private async anonymiseWhere(em: EntityManager, where: string, params: unknown[]): Promise<number> {
    const { rows } = await sql<{ id: number }>(
      em,
      `UPDATE orders SET customer_email = NULL, customer_name = NULL, customer_phone = NULL,
              shipping_address = NULL, metadata = NULL, user_id = NULL, anonymised_at = now(), updated_at = now()
        WHERE ${where} AND anonymised_at IS NULL
        RETURNING id`,
      params,
      { bigints: ['id'] },
    );
    if (rows.length)
      await sql(
        em,
        `UPDATE order_shipments SET tracking_number = '', tracking_url = NULL
          WHERE order_id = ANY($1::bigint[])`,
        [rows.map((r) => r.id)],
      );
    return rows.length;
  }

  async countToAnonymise(em: EntityManager, accountId: number): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      em,
      'SELECT count(*)::int AS n FROM orders WHERE account_id = $1 AND anonymised_at IS NULL',
      [accountId],
    );
    return rows[0].n;
  }
}
