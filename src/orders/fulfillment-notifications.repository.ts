import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../database/sql';
import { NotificationOutcome } from './entities/fulfillment-notification.entity';

/** A fulfillment provider's notifications: each id claimed once per site, its outcome kept for replays; the site's secret. */
@Injectable()
export class FulfillmentNotificationsRepository {
  /**
   * Claims a notification id for the site: true when this transaction is the first to apply
   * it. A concurrent claim of the same id waits here for the other transaction: if it commits,
   * this one is a replay (false); if it rolls back, this one goes on.
   */
  async claimNotification(
    em: EntityManager,
    siteId: number,
    notificationId: string,
    orderId: number,
  ): Promise<boolean> {
    const { rowCount } = await sql(
      em,
      `INSERT INTO order_fulfillment_notifications (site_id, notification_id, order_id) VALUES ($1, $2, $3)
       ON CONFLICT (site_id, notification_id) DO NOTHING`,
      [siteId, notificationId, orderId],
    );
    return rowCount === 1;
  }

  async notificationOutcome(
    em: EntityManager,
    siteId: number,
    notificationId: string,
  ): Promise<NotificationOutcome | null> {
    const { rows } = await sql<{ outcome: NotificationOutcome | null }>(
      em,
      'SELECT outcome FROM order_fulfillment_notifications WHERE site_id = $1 AND notification_id = $2',
      [siteId, notificationId],
    );
    return rows[0]?.outcome ?? null;
  }

  async recordOutcome(em: EntityManager, siteId: number, outcome: NotificationOutcome): Promise<void> {
    await sql(
      em,
      `UPDATE order_fulfillment_notifications SET outcome = $3
        WHERE site_id = $1 AND notification_id = $2`,
      [siteId, outcome.id, JSON.stringify(outcome)],
    );
  }

  /**
   * Sets the site's fulfillment secret in one statement: the first, or a new one whose
   * predecessor keeps verifying for `graceSeconds` (none when 0). Two rotations at once take
   * turns on the row.
   */
  async rotateSecret(em: EntityManager, siteId: number, secret: string, graceSeconds: number): Promise<void> {
    await sql(
      em,
      `INSERT INTO order_fulfillment_secrets (site_id, secret) VALUES ($1, $2)
       ON CONFLICT (site_id) DO UPDATE SET
         previous_secret = CASE WHEN $3::int > 0 THEN order_fulfillment_secrets.secret END,
         previous_secret_expires_at = CASE WHEN $3::int > 0 THEN now() + make_interval(secs => $3::int) END,
         secret = EXCLUDED.secret,
         updated_at = now()`,
      [siteId, secret, graceSeconds],
    );
  }
}
