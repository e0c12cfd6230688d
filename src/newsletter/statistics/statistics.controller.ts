import { Get, Query } from '@nestjs/common';
import { CurrentSite } from '../../common/auth/decorators';
import { ApiController, Route } from '../../common/http/route.decorator';
import { SiteContext } from '../../common/tenancy/site-context';
import { StatisticsQueryDto, StatisticsResponseDto } from '../dto/statistics.dto';
import { StatisticsService } from './statistics.service';

@ApiController('api/v2/sites/:siteName/newsletter/statistics', { tag: 'Newsletter', permissions: 'newsletter' })
export class NewsletterStatisticsController {
  constructor(private readonly statistics: StatisticsService) {}

  @Get()
  @Route({
    auth: 'key',
    summary: 'Get newsletter statistics',
    description:
      'Subscribers by status, growth per UTC day (joined, unsubscribed), and per campaign: sent, delivered, ' +
      'failed, bounces, unique and total opens and clicks (people and machines apart), unsubscribes, rates ' +
      '(machines left out unless `includeMachines`) and top links. Read from counters kept on write.',
    ok: StatisticsResponseDto,
  })
  getNewsletterStatistics(
    @CurrentSite() site: SiteContext,
    @Query() query: StatisticsQueryDto,
  ): Promise<StatisticsResponseDto> {
    return this.statistics.get(site, query);
  }
}
