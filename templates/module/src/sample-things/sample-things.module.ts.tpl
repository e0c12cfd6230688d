import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnswersProblems } from '../common/errors/problem-codes';
import { SampleThingEntity } from './entities/sample-thing.entity';
import { SampleThingsDataOwner } from './sample-things-data.owner';
import { SampleThingsController } from './sample-things.controller';
import { SAMPLE_THINGS_PROBLEMS } from './sample-things.problems';
import { SampleThingsRepository } from './sample-things.repository';
import { SampleThingsService } from './sample-things.service';

/** Sample things (docs/sample-things.md). */
@AnswersProblems(SAMPLE_THINGS_PROBLEMS)
@Module({
  imports: [TypeOrmModule.forFeature([SampleThingEntity])],
  controllers: [SampleThingsController],
  providers: [SampleThingsService, SampleThingsRepository, SampleThingsDataOwner],
  exports: [SampleThingsService],
})
export class SampleThingsModule {}
