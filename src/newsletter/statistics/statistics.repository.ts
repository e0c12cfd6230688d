import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sql } from '../../database/sql';
import type { CampaignStatus } from '../entities/campaign.entity';

/** A campaign with its counters and its ten most clicked links. */
export interface CampaignRow {
  id: number;
  name: string;
  status: CampaignStatus;
  started_at: Date | null;
  sent_at: Date | null;
  recipient_count: number;
  delivered: number;
  failed: number;
  bounced: number;
  complaints: number;
  opens: number;
  unique_opens: number;
  machine_opens: number;
  unique_machine_opens: number;
  clicks: number;
  unique_clicks: number;
  machine_clicks: number;
  unique_machine_clicks: number;
  unsubscribes: number;
  links: Array<{ url: string; clicks: number; machineClicks: number }> | null;
}

/**
 * The statistics' reads (docs/newsletter.md, "Statistics"): the aggregates kept on write, each
 * an index lookup or a range of days.
 */
@Injectable()
export class StatisticsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async listExists(siteId: number, listId: number): Promise<boolean> {
    const { rows } = await sql(this.dataSource, 'SELECT 1 FROM newsletter_lists WHERE id = $1 AND site_id = $2', [
      listId,
      siteId,
    ]);
    return rows.length > 0;
  }

  /** Members of the site's lists (or of one) by status. */
  async subscriberCounts(siteId: number, listId: number | null): Promise<Array<{ status: string; n: number }>> {
    const { rows } = await sql<{ status: string; n: number }>(
      this.dataSource,
      // Through the site's lists: the counts' primary key leads with list_id.
      `SELECT status, sum(count)::int AS n FROM newsletter_list_counts
        WHERE list_id IN (SELECT id FROM newsletter_lists WHERE site_id = $1 AND ($2::bigint IS NULL OR id = $2))
        GROUP BY status`,
      [siteId, listId],
    );
    return rows;
  }

  /** Joined and unsubscribed per UTC day from `from` to `to`, of the site's lists (or of one). */
  async growth(
    siteId: number,
    listId: number | null,
    from: Date,
    to: Date,
  ): Promise<Array<{ day: string; joined: number; unsubscribed: number }>> {
    const { rows } = await sql<{ day: string; joined: number; unsubscribed: number }>(
      this.dataSource,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(joined)::int AS joined, sum(unsubscribed)::int AS unsubscribed
         FROM newsletter_list_daily
        WHERE site_id = $1 AND ($2::bigint IS NULL OR list_id = $2)
          AND day >= ($3::timestamptz AT TIME ZONE 'UTC')::date AND day <= ($4::timestamptz AT TIME ZONE 'UTC')::date
        GROUP BY day ORDER BY day`,
      [siteId, listId, from, to],
    );
    return rows;
  }

  /**
   * One campaign of the site (`campaignId`), or the 50 newest started from `from` to `to` (to one
   * list's, with `listId`).
   */
  async campaigns(
    siteId: number,
    campaignId: number | null,
    from: Date,
    to: Date,
    listId: number | null,
  ): Promise<CampaignRow[]> {
    const { rows } = await sql<CampaignRow>(
      this.dataSource,
      `SELECT c.id, c.name, c.status, c.started_at, c.sent_at, c.recipient_count,
              s.delivered, s.failed, s.bounced, s.complaints, s.opens, s.unique_opens, s.machine_opens, s.unique_machine_opens,
              s.clicks, s.unique_clicks, s.machine_clicks, s.unique_machine_clicks, s.unsubscribes,
              (SELECT json_agg(json_build_object('url', l.url, 'clicks', l.clicks, 'machineClicks', l.machine_clicks)
                        ORDER BY l.clicks DESC, l.link_index)
                 FROM (SELECT * FROM newsletter_campaign_links WHERE campaign_id = c.id
                        ORDER BY clicks DESC, link_index LIMIT 10) l) AS links
         FROM newsletter_campaigns c JOIN newsletter_campaign_stats s ON s.campaign_id = c.id
        WHERE c.site_id = $1
          AND CASE WHEN $2::bigint IS NOT NULL THEN c.id = $2
                   ELSE c.started_at >= $3 AND c.started_at < $4 AND ($5::bigint IS NULL OR $5 = ANY(c.list_ids)) END
        ORDER BY c.id DESC LIMIT 50`,
      [siteId, campaignId, from, to, listId],
      { bigints: ['id'] },
    );
    return rows;
  }
}
