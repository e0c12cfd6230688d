import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DAY_SECONDS, deleteAged } from '../database/retention-sql';
import { sql } from '../database/sql';
import type { PaymentMode } from './entities/payment-account.entity';

/** The ledger of Stripe events a site applied, by event id (docs/payments.md, "Events"). */
@Injectable()
export class PaymentEventsRepository {
  /** Claims the event's id for the site: false when it was claimed before (a redelivery). */
  async claim(
    em: EntityManager,
    siteId: number,
    event: { id: string; type: string; objectId: string | null },
    mode: PaymentMode,
  ): Promise<boolean> {
    const { rows } = await sql(
      em,
      `INSERT INTO payment_events (site_id, event_id, mode, type, object_id, outcome)
       VALUES ($1, $2, $3, $4, $5, 'ignored')
       ON CONFLICT (site_id, processor, event_id) DO NOTHING RETURNING id`,
      [siteId, event.id, mode, event.type, event.objectId],
    );
    return rows.length === 1;
  }

  async setOutcome(em: EntityManager, siteId: number, eventId: string, outcome: 'applied' | 'ignored'): Promise<void> {
    await sql(
      em,
      `UPDATE payment_events SET outcome = $3 WHERE site_id = $1 AND processor = 'stripe' AND event_id = $2`,
      [siteId, eventId, outcome],
    );
  }

  async outcomeOf(em: EntityManager, siteId: number, eventId: string): Promise<'applied' | 'ignored'> {
    const { rows } = await sql<{ outcome: 'applied' | 'ignored' }>(
      em,
      `SELECT outcome FROM payment_events WHERE site_id = $1 AND processor = 'stripe' AND event_id = $2`,
      [siteId, eventId],
    );
    return rows[0]?.outcome ?? 'ignored';
  }

  /**
   * Retention: at most `limit` events received more than `days` ago, oldest first (index
   * payment_events_received_at_idx). Stripe sends an event again for up to 30 days only.
   */
  deleteOld(db: DataSource, days: number, limit: number): Promise<number> {
    return deleteAged(db, { table: 'payment_events', time: 'received_at' }, days * DAY_SECONDS, limit);
  }
}
