import { Injectable, OnModuleInit } from '@nestjs/common';
import { QueueService } from '../common/queue/queue.service';
import { IMPORT_JOB, ImportService } from './import.service';

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
    this.queue.register<ImportJobData>(IMPORT_JOB, (data) => this.imports.run(data.importId), {
      retryLimit: 5,
      expireInSeconds: 3600,
    });
  }
}
