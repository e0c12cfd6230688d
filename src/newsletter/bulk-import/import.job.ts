import { Injectable, OnModuleInit } from '@nestjs/common';
import { QueueService } from '../../common/queue/queue.service';
import { IMPORT_JOB, IMPORT_RECOVER_JOB, ImportService } from './import.service';

const RETRIES = 5;

export interface ImportJobData {
  importId: number;
}

/**
 * Runs a queued import (`newsletter.import`): its batches each commit on their own, and the
 * staged rows a batch took are gone with it, so a retry after a crash resumes where it stopped.
 */
@Injectable()
export class ImportJob implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    private readonly imports: ImportService,
  ) {}

  onModuleInit(): void {
    this.queue.register<ImportJobData>(
      IMPORT_JOB,
      async (data, job) => {
        try {
          await this.imports.run(data.importId);
        } catch (err) {
          // The last retry: the import says it failed instead of staying `running` for ever.
          if (job.retryCount >= RETRIES) await this.imports.fail(data.importId);
          throw err;
        }
      },
      { retryLimit: RETRIES, expireInSeconds: 3600 },
    );
    this.queue.register(IMPORT_RECOVER_JOB, async () => void (await this.imports.recover()), {
      cron: '* * * * *',
      retryLimit: 0,
    });
  }
}
