import { Injectable, Logger } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { ChangeNotifications } from '../database/change-notifications';
import { AccountConfig } from './account.config';
import { KeyPrincipal } from '../common/auth/principal';
import { AccountDataRegistry, DeletionImpact } from '../common/deletion/account-data.registry';
import { ConflictProblem, NotFoundProblem } from '../common/errors/problems';
import { recordEvent } from '../common/outbox/record-event';
import { ACCOUNT_EVENTS } from './account.events';
import { QueueService } from '../common/queue/queue.service';
import { AccountDeletionEntity } from './entities/account-deletion.entity';
import { AccountEntity } from '../common/tenancy/entities/account.entity';

import { ACCOUNT_PURGE_JOB, AccountPurgeJobData } from './account-purge.job';

/**
 * Account deletion: scheduled with a grace period, cancelable until the purge job
 * runs; the job asks every registered owner to purge its rows, then removes the account.
 */
@Injectable()
export class AccountDeletionService {
  private readonly logger = new Logger('AccountDeletion');

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: AccountDataRegistry,
    private readonly queue: QueueService,
    private readonly config: AccountConfig,
    private readonly notifications: ChangeNotifications,
  ) {}

  /** Schedules the deletion; asking again while one is scheduled returns that one. */
  async schedule(key: KeyPrincipal): Promise<AccountDeletionEntity> {
    const deletion = await this.dataSource.transaction(async (em) => {
      await em.findOneOrFail(AccountEntity, { where: { id: key.accountId }, lock: { mode: 'pessimistic_write' } });
      const pending = await em.findOne(AccountDeletionEntity, {
        where: { accountId: key.accountId, status: In(['scheduled', 'purging']) },
      });
      if (pending) return pending;
      const purgeAfter = new Date(Date.now() + this.config.ACCOUNT_DELETION_GRACE_SECONDS * 1000);
      const deletion = await em.save(
        em.create(AccountDeletionEntity, {
          accountId: key.accountId,
          status: 'scheduled',
          purgeAfter,
          requestedByKeyId: key.keyId,
          canceledAt: null,
          completedAt: null,
          summary: null,
        }),
      );
      await em.update(AccountEntity, { id: key.accountId }, { status: 'deletion_scheduled' });
      await recordEvent(em, { accountId: key.accountId }, ACCOUNT_EVENTS.deletionScheduled, {
        id: deletion.id,
        purgeAfter: purgeAfter.toISOString(),
      });
      await this.queue.send(ACCOUNT_PURGE_JOB, { deletionId: deletion.id } satisfies AccountPurgeJobData, {
        startAfter: purgeAfter,
        em,
      });
      return deletion;
    });
    // Keys of the account may only read from now on, on this instance's next request too.
    this.notifications.changed('sitebase_credentials');
    return deletion;
  }

  async cancel(key: KeyPrincipal): Promise<AccountDeletionEntity> {
    const canceled = await this.dataSource.transaction(async (em) => {
      await em.findOneOrFail(AccountEntity, { where: { id: key.accountId }, lock: { mode: 'pessimistic_write' } });
      const pending = await em.findOne(AccountDeletionEntity, {
        where: { accountId: key.accountId },
        order: { id: 'DESC' },
      });
      if (pending?.status === 'purging')
        throw new ConflictProblem('deletion_in_progress', 'The purge has started and can no longer be canceled');
      if (pending?.status !== 'scheduled') throw new NotFoundProblem('Scheduled deletion', 'deletion_not_found');
      pending.status = 'canceled';
      pending.canceledAt = new Date();
      await em.save(pending);
      await em.update(AccountEntity, { id: key.accountId }, { status: 'active' });
      await recordEvent(em, { accountId: key.accountId }, ACCOUNT_EVENTS.deletionCanceled, { id: pending.id });
      return pending;
    });
    this.notifications.changed('sitebase_credentials');
    return canceled;
  }

  /** The latest deletion request of the account. */
  async latest(key: KeyPrincipal): Promise<AccountDeletionEntity> {
    const found = await this.dataSource.getRepository(AccountDeletionEntity).findOne({
      where: { accountId: key.accountId },
      order: { id: 'DESC' },
    });
    if (!found) throw new NotFoundProblem('Deletion request', 'deletion_not_found');
    return found;
  }

  async preview(key: KeyPrincipal): Promise<{ gracePeriodSeconds: number; impacts: DeletionImpact[] }> {
    const impacts: DeletionImpact[] = [];
    await this.dataSource.transaction('REPEATABLE READ', async (em) => {
      for (const owner of this.registry.list()) impacts.push(...(await owner.preview(em, key.accountId)));
    });
    return { gracePeriodSeconds: this.config.ACCOUNT_DELETION_GRACE_SECONDS, impacts };
  }

  /** The job: claims a due deletion, then purges; a retry after a crash resumes it (safe to run twice). */
  async purge(deletionId: number): Promise<void> {
    const accountId = await this.dataSource.transaction(async (em) => {
      const deletion = await em.findOne(AccountDeletionEntity, {
        where: { id: deletionId },
        lock: { mode: 'pessimistic_write' },
      });
      const due =
        deletion?.status === 'purging' || (deletion?.status === 'scheduled' && deletion.purgeAfter <= new Date());
      if (!deletion || !due) return null; // canceled, completed, or not yet due
      if (deletion.status !== 'purging')
        await em.update(AccountDeletionEntity, { id: deletionId }, { status: 'purging' });
      return deletion.accountId;
    });
    if (accountId === null) return;
    const summary: Record<string, number> = {};
    for (const owner of this.registry.list()) {
      const counts = await this.dataSource.transaction((em) => owner.purge(em, accountId));
      for (const [resource, n] of Object.entries(counts)) summary[resource] = (summary[resource] ?? 0) + n;
    }
    await this.dataSource.transaction(async (em) => {
      await em.delete(AccountEntity, { id: accountId });
      await em.update(
        AccountDeletionEntity,
        { id: deletionId },
        { status: 'completed', completedAt: new Date(), summary },
      );
    });
    this.logger.log({ accountId, summary }, 'Account purged');
  }
}
