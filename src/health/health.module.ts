import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { AnswersProblems } from '../common/errors/problem-codes';
import { HEALTH_PROBLEMS } from './health.problems';

@AnswersProblems(HEALTH_PROBLEMS)
@Module({ controllers: [HealthController] })
export class HealthModule {}
