import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundProblem, ValidationProblem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { sql } from '../../database/sql';
import { decodeAttribute } from '../campaigns/campaign-content';
import {
  CampaignStatisticsDto,
  GrowthDayDto,
  StatisticsQueryDto,
  StatisticsResponseDto,
  SubscriberCountsDto,
} from '../dto/statistics.dto';
import type { CampaignStatus } from '../entities/campaign.entity';

const DAY_MS = 86_400_000;
const MAX_RANGE_DAYS = 366;

interface CampaignRow {
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

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : 0);

/**
 * GET statistics (docs/newsletter.md, "Statistics"): read from the aggregates kept on write —
 * list counts and daily growth (triggers on memberships), a campaign's counters and its links'
 * — never from the events: each part is an index lookup or a range of at most a year of days.
 */
@Injectable()
export class StatisticsService {
  constructor(private readonly dataSource: DataSource) {}

  async get(site: SiteContext, q: StatisticsQueryDto): Promise<StatisticsResponseDto> {
    const to = q.to ?? new Date();
    const from = q.from ?? new Date(to.getTime() - 30 * DAY_MS);
    if (from >= to) throw new ValidationProblem([{ path: 'from', message: 'must be before to' }]);
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
      throw new ValidationProblem([{ path: 'from', message: `must be at most ${MAX_RANGE_DAYS} days before to` }]);
    const db = this.dataSource;
    if (q.listId !== undefined) {
      const { rows } = await sql(db, 'SELECT 1 FROM newsletter_lists WHERE id = $1 AND site_id = $2', [
        q.listId,
        site.id,
      ]);
      if (rows.length === 0) throw new NotFoundProblem('List');
    }
    const list = q.listId ?? null;

    const { rows: counts } = await sql<{ status: string; n: number }>(
      db,
      // Through the site's lists: the counts' primary key leads with list_id.
      `SELECT status, sum(count)::int AS n FROM newsletter_list_counts
        WHERE list_id IN (SELECT id FROM newsletter_lists WHERE site_id = $1 AND ($2::bigint IS NULL OR id = $2))
        GROUP BY status`,
      [site.id, list],
    );
    const subscribers: SubscriberCountsDto = { pending: 0, active: 0, unsubscribed: 0 };
    for (const c of counts) if (c.status in subscribers) subscribers[c.status as keyof SubscriberCountsDto] = c.n;

    const { rows: days } = await sql<{ day: string; joined: number; unsubscribed: number }>(
      db,
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(joined)::int AS joined, sum(unsubscribed)::int AS unsubscribed
         FROM newsletter_list_daily
        WHERE site_id = $1 AND ($2::bigint IS NULL OR list_id = $2)
          AND day >= ($3::timestamptz AT TIME ZONE 'UTC')::date AND day <= ($4::timestamptz AT TIME ZONE 'UTC')::date
        GROUP BY day ORDER BY day`,
      [site.id, list, from, to],
    );
    const growth: GrowthDayDto[] = days.map((d) => ({ day: d.day, joined: d.joined, unsubscribed: d.unsubscribed }));

    const { rows: campaigns } = await sql<CampaignRow>(
      db,
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
      [site.id, q.campaignId ?? null, from, to, list],
      { bigints: ['id'] },
    );
    if (q.campaignId !== undefined && campaigns.length === 0) throw new NotFoundProblem('Campaign');
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      subscribers,
      growth,
      campaigns: campaigns.map((c) => campaignStatistics(c, q.includeMachines === true)),
    };
  }
}

function campaignStatistics(c: CampaignRow, machines: boolean): CampaignStatisticsDto {
  const opens = c.unique_opens + (machines ? c.unique_machine_opens : 0);
  const clicks = c.unique_clicks + (machines ? c.unique_machine_clicks : 0);
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    startedAt: c.started_at?.toISOString() ?? null,
    sentAt: c.sent_at?.toISOString() ?? null,
    sent: c.recipient_count,
    delivered: c.delivered,
    failed: c.failed,
    bounces: c.bounced,
    complaints: c.complaints,
    opens: {
      unique: c.unique_opens,
      total: c.opens,
      machineUnique: c.unique_machine_opens,
      machineTotal: c.machine_opens,
    },
    clicks: {
      unique: c.unique_clicks,
      total: c.clicks,
      machineUnique: c.unique_machine_clicks,
      machineTotal: c.machine_clicks,
    },
    unsubscribes: c.unsubscribes,
    rates: {
      delivery: ratio(c.delivered, c.recipient_count),
      open: ratio(opens, c.delivered),
      click: ratio(clicks, c.delivered),
      clickToOpen: ratio(clicks, opens),
      unsubscribe: ratio(c.unsubscribes, c.delivered),
      bounce: ratio(c.bounced, c.recipient_count),
      complaint: ratio(c.complaints, c.delivered),
    },
    topLinks: (c.links ?? []).map((l) => ({
      url: decodeAttribute(l.url),
      clicks: l.clicks,
      machineClicks: l.machineClicks,
    })),
  };
}
