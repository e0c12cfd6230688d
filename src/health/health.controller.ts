import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/decorators';
import { SkipRateLimit } from '../common/http/rate-limit.guard';
import { ApiProblems } from '../common/errors/api-problems.decorator';
import { Problem } from '../common/errors/problems';

class HealthDto {
  @ApiProperty({ example: 'ok' }) status: string;
}

class ReadinessDto extends HealthDto {
  @ApiProperty({ example: 'up' }) database: string;
}

@ApiTags('Health')
@Public()
@SkipRateLimit()
@Controller('health')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: HealthDto })
  live(): HealthDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiProblems(503)
  async ready(): Promise<ReadinessDto> {
    try {
      await this.dataSource.query('SELECT 1');
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
