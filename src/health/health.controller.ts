import { ping } from '../database/sql';
import { Get } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { SkipRateLimit } from '../common/rate-limit/rate-limit.guard';
import { Problem } from '../common/errors/problems';
import { ApiController, Route } from '../common/http/route.decorator';

class HealthDto {
  @ApiProperty({ example: 'ok' }) status: string;
}

class ReadinessDto extends HealthDto {
  @ApiProperty({ example: 'up' }) database: string;
}

@ApiController('health', { tag: 'Health', permissions: 'none' })
// Below ApiController, so it is set when ApiController derives the routes' problems (no 429).
@SkipRateLimit()
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @Route({ auth: 'public', summary: 'Liveness: the process answers', ok: HealthDto })
  getHealth(): HealthDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @Route({
    auth: 'public',
    summary: 'Readiness: the database answers',
    ok: ReadinessDto,
    problems: [503],
  })
  async getReadiness(): Promise<ReadinessDto> {
    try {
      await ping(this.dataSource);
    } catch {
      throw new Problem({
        status: 503,
        code: 'not_ready',
        title: 'Service unavailable',
        detail: 'The database does not answer',
      });
    }
    return { status: 'ok', database: 'up' };
  }
}
