import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DAY_SECONDS, deleteAged } from '../database/retention-sql';
import { sql } from '../database/sql';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import type { AttemptResult } from './webhook-sender';

/** A delivery due for an attempt, with what sending it needs. */
export interface DueDelivery {
  id: number;
  eventType: string;
  payload: string;
  attempts: number;
}

/** What one attempt of a delivery led to, as the drain writes it. */
export interface DeliveryOutcome {
  deliveryId: number;
  attemptedAt: Date;
  result: AttemptResult;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: Date | null;
}

/**
 * The statements of the drain (an endpoint's due deliveries, their outcomes, one statement for a
 * batch) and of the sweep (endpoints left due, the delivery log's retention).
 */
@Injectable()
export class WebhookDrainRepository {
  /** The endpoint as the drain needs it (any site: jobs carry ids). */
  endpointById(em: EntityManager, id: number): Promise<WebhookEndpointEntity | null> {
    return em.findOne(WebhookEndpointEntity, { where: { id } });
  }

  /** The endpoint's deliveries due now, oldest first: the order events happened in. */
  async dueDeliveries(em: EntityManager, endpointId: number, limit: number): Promise<DueDelivery[]> {
    const { rows } = await sql<DueDelivery>(
      em,
      `SELECT id, event_type AS "eventType", payload, attempts FROM webhook_deliveries
        WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at <= now()
        ORDER BY id LIMIT $2`,
      [endpointId, limit],
      { bigints: ['id'] },
    );
    return rows;
  }

  /** Gives up the endpoint's pending deliveries whose retry window has passed; answers how many. */
  async expire(em: EntityManager, endpointId: number): Promise<number> {
    const { rowCount } = await sql(
      em,
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now(),
         last_error = 'Given up: not delivered within the retry window' || COALESCE(' (last: ' || last_error || ')', '')
       WHERE endpoint_id = $1 AND status = 'pending' AND expires_at < now()`,
      [endpointId],
    );
    return rowCount;
  }

  /** When the endpoint's next pending delivery is due, if it has one. */
  async nextPendingAt(em: EntityManager, endpointId: number): Promise<Date | null> {
    const { rows } = await sql<{ at: Date | null }>(
      em,
      `SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`,
      [endpointId],
    );
    return rows[0]?.at ?? null;
  }

  /** Every attempt of a drain's batch and where each delivery stands after it: two statements. */
  async recordOutcomes(em: EntityManager, outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const col = <T>(f: (o: DeliveryOutcome) => T) => outcomes.map(f);
    await sql(
      em,
      `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error_kind, error)
       SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[])`,
      [
        col((o) => o.deliveryId),
        col((o) => o.attemptedAt),
        col((o) => o.result.statusCode),
        col((o) => o.result.durationMs),
        col((o) => o.result.responseExcerpt),
        col((o) => o.result.errorKind),
        col((o) => o.result.error),
      ],
    );
    await sql(
      em,
      `UPDATE webhook_deliveries d SET status = w.status, attempts = w.attempts, next_attempt_at = w.next_attempt_at,
         last_attempt_at = w.attempted_at, last_status_code = w.status_code, last_error_kind = w.error_kind,
         last_error = w.error, delivered_at = CASE WHEN w.status = 'succeeded' THEN w.attempted_at ELSE d.delivered_at END,
         updated_at = now()
       FROM unnest($1::bigint[], $2::text[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::text[], $8::text[])
         AS w(id, status, attempts, next_attempt_at, attempted_at, status_code, error_kind, error)
       WHERE d.id = w.id`,
      [
        col((o) => o.deliveryId),
        col((o) => o.status),
        col((o) => o.attempts),
        col((o) => o.nextAttemptAt),
        col((o) => o.attemptedAt),
        col((o) => o.result.statusCode),
        col((o) => o.result.errorKind),
        col((o) => o.result.error),
      ],
    );
  }

  /** Endpoints with deliveries due and nothing holding them back (the sweep's safety net). */
  async endpointsDue(limit: number, em: EntityManager): Promise<number[]> {
    const { rows } = await sql<{ id: number }>(
      em,
      `SELECT DISTINCT d.endpoint_id AS id FROM (
         SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $1) d
       JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE e.status = 'enabled' AND (e.retry_at IS NULL OR e.retry_at <= now())`,
      [limit * 20],
      { bigints: ['id'] },
    );
    return rows.slice(0, limit).map((r) => r.id);
  }

  /**
   * Removes finished deliveries (and their attempts) created before `days` ago, `batch` at most
   * (index webhook_deliveries_finished_created_at_idx).
   */
  prune(em: EntityManager, days: number, batch: number): Promise<number> {
    const finished = { table: 'webhook_deliveries', time: 'created_at', where: "status <> 'pending'" };
    return deleteAged(em, finished, days * DAY_SECONDS, batch);
  }

  async accountOfSite(em: EntityManager, siteId: number): Promise<number> {
    const { rows } = await sql<{ accountId: number }>(
      em,
      'SELECT account_id AS "accountId" FROM sites WHERE id = $1',
      [siteId],
      { bigints: ['accountId'] },
    );
    return rows[0].accountId;
  }
}
