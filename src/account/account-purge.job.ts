import { forwardRef, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { QueueService } from '../common/queue/queue.service';
import { AccountDeletionService } from './account-deletion.service';

export const ACCOUNT_PURGE_JOB = 'account.purge';

/** The job's payload: the deletion request to carry out. */
export interface AccountPurgeJobData {
  deletionId: number;
}

/**
 * Purges an account when its grace period ends (queued by the deletion request, in its
 * transaction). Safe to run twice: a completed or canceled request is left alone, and a purge
 * cut short resumes where it stopped.
 */
@Injectable()
export class AccountPurgeJob implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    // forwardRef: the service imports this file for the queue name and payload.
    @Inject(forwardRef(() => AccountDeletionService)) private readonly deletions: AccountDeletionService,
  ) {}

  onModuleInit(): void {
    this.queue.register<AccountPurgeJobData>(ACCOUNT_PURGE_JOB, ({ deletionId }) => this.deletions.purge(deletionId));
  }
}
