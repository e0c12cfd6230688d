import { Injectable } from '@nestjs/common';
import { NotFoundProblem, ValidationProblem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { decodeAttribute } from '../campaigns/campaign-content';
import {
  CampaignStatisticsDto,
  GrowthDayDto,
  StatisticsQueryDto,
  StatisticsResponseDto,
  SubscriberCountsDto,
} from '../dto/statistics.dto';
import { CampaignRow, StatisticsRepository } from './statistics.repository';

const DAY_MS = 86_400_000;
const MAX_RANGE_DAYS = 366;

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : 0);

/**
 * GET statistics (docs/newsletter.md, "Statistics"): read from the aggregates kept on write —
 * list counts and daily growth (triggers on memberships), a campaign's counters and its links'
 * — never from the events: each part is an index lookup or a range of at most a year of days.
 */
@Injectable()
export class StatisticsService {
  constructor(private readonly repository: StatisticsRepository) {}

  async get(site: SiteContext, q: StatisticsQueryDto): Promise<StatisticsResponseDto> {
    const to = q.to ?? new Date();
    const from = q.from ?? new Date(to.getTime() - 30 * DAY_MS);
    if (from >= to) throw new ValidationProblem([{ path: 'from', message: 'must be before to' }]);
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
      throw new ValidationProblem([{ path: 'from', message: `must be at most ${MAX_RANGE_DAYS} days before to` }]);
    if (q.listId !== undefined && !(await this.repository.listExists(site.id, q.listId)))
      throw new NotFoundProblem('List');
    const list = q.listId ?? null;

    const counts = await this.repository.subscriberCounts(site.id, list);
    const subscribers: SubscriberCountsDto = { pending: 0, active: 0, unsubscribed: 0 };
    for (const c of counts) if (c.status in subscribers) subscribers[c.status as keyof SubscriberCountsDto] = c.n;

    const days = await this.repository.growth(site.id, list, from, to);
    const growth: GrowthDayDto[] = days.map((d) => ({ day: d.day, joined: d.joined, unsubscribed: d.unsubscribed }));

    const campaigns = await this.repository.campaigns(site.id, q.campaignId ?? null, from, to, list);
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
