import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DAY_SECONDS, deleteAged } from '../../database/retention-sql';
import { sql } from '../../database/sql';
import { SubscriptionEntity } from '../entities/subscription.entity';
import { TrackingEventEntity, TrackingKind } from '../entities/tracking-event.entity';

/** One open or click to record. */
export interface TrackingWrite {
  siteId: number;
  campaignId: number;
  subscriptionId: number;
  kind: TrackingKind;
  linkIndex: number | null;
  machine: boolean;
  reason: string | null;
  userAgent: string | null;
  at: Date;
}

/** The tracking statements (docs/newsletter.md, "Tracking"). */
@Injectable()
export class TrackingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One batch in one statement, atomic on its own (the function `newsletter_tracking_write`,
   * migration TrackingWrite): the events of recipients that exist, their first open and click of
   * each kind, and the campaigns' and links' counters. Answers the recipients that exist.
   */
  async write(
    batch: TrackingWrite[],
    machineWindowSeconds: number,
  ): Promise<Array<{ stored_campaign: number; stored_subscription: number }>> {
    const { rows } = await sql<{ stored_campaign: number; stored_subscription: number }>(
      this.dataSource,
      `SELECT stored_campaign, stored_subscription
         FROM newsletter_tracking_write($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::int[], $6::boolean[],
                                        $7::text[], $8::text[], $9::timestamptz[], $10::int)`,
      [
        batch.map((e) => e.siteId),
        batch.map((e) => e.campaignId),
        batch.map((e) => e.subscriptionId),
        batch.map((e) => e.kind),
        batch.map((e) => e.linkIndex),
        batch.map((e) => e.machine),
        batch.map((e) => e.reason),
        batch.map((e) => e.userAgent),
        batch.map((e) => e.at),
        machineWindowSeconds,
      ],
      { bigints: ['stored_campaign', 'stored_subscription'] },
    );
    return rows;
  }

  /** The campaign's link targets as stored, in link order. */
  async linkUrls(siteId: number, campaignId: number): Promise<string[]> {
    const { rows } = await sql<{ url: string }>(
      this.dataSource,
      `SELECT url FROM newsletter_campaign_links WHERE campaign_id = $1 AND site_id = $2 ORDER BY link_index`,
      [campaignId, siteId],
    );
    return rows.map((r) => r.url);
  }

  /** The opens and clicks recorded for an address of a site. */
  eventsOfAddress(em: EntityManager, siteId: number, email: string): Promise<number> {
    return em
      .createQueryBuilder(TrackingEventEntity, 't')
      .innerJoin(SubscriptionEntity, 's', 's.id = t.subscription_id')
      .where('s.site_id = :siteId AND s.email = :email AND t.site_id = :siteId', {
        siteId,
        email: email.trim().toLowerCase(),
      })
      .getCount();
  }

  /**
   * Retention: removes at most `limit` opens and clicks recorded more than `days` ago, oldest
   * first (index newsletter_tracking_events_created_at_idx). The campaigns' counters and the
   * recipients' first open and click are kept on write elsewhere and stay.
   */
  deleteOld(db: DataSource, days: number, limit: number): Promise<number> {
    return deleteAged(db, { table: 'newsletter_tracking_events', time: 'created_at' }, days * DAY_SECONDS, limit);
  }
}
