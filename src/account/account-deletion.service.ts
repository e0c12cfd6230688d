import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { ChangeNotifications } from '../database/change-notifications';
import { AppConfig } from '../config/app-config';
import { KeyPrincipal } from '../common/auth/principal';
import { AccountDataRegistry, DeletionImpact } from '../common/deletion/account-data.registry';
import { IdempotencyKeyEntity } from '../common/idempotency/idempotency-key.entity';
import { ConflictProblem, NotFoundProblem } from '../common/errors/problems';
import { OutboxEventEntity } from '../common/outbox/outbox-event.entity';
import { recordEvent } from '../common/outbox/record-event';
import { QueueService } from '../common/queue/queue.service';
import { AccountDeletionEntity } from './entities/account-deletion.entity';
import { AccountEntity } from './entities/account.entity';

export const ACCOUNT_PURGE_JOB = 'account.purge';

interface PurgeJob {
  deletionId: number;
}

/**
 * Account deletion (API.md §8): scheduled with a grace period, cancelable until the purge job
 * runs; the job asks every registered owner to purge its rows, then removes the account.
 */
@Injectable()
export class AccountDeletionService implements OnModuleInit {
  private readonly logger = new Logger('AccountDeletion');

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: AccountDataRegistry,
    private readonly queue: QueueService,
    private readonly config: AppConfig,
    private readonly notifications: ChangeNotifications,
  ) {}

  onModuleInit(): void {
    this.queue.register<PurgeJob>(ACCOUNT_PURGE_JOB, ({ deletionId }) => this.purge(deletionId));
    // The account's own bookkeeping goes last, after every module's data.
    this.registry.register({
      name: 'account_records',
      order: 1000,
      preview: async (em, accountId) => [
        { resource: 'events', count: await em.count(OutboxEventEntity, { where: { accountId } }), action: 'delete' },
      ],
      purge: async (em, accountId) => {
        const events = await em.delete(OutboxEventEntity, { accountId });
        await em.delete(IdempotencyKeyEntity, { scope: `account:${accountId}` });
        return { events: events.affected ?? 0 };
      },
    });
  }

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
      await recordEvent(em, { accountId: key.accountId }, 'account.deletion_scheduled', {
        id: deletion.id,
        purgeAfter: purgeAfter.toISOString(),
      });
      await this.queue.send(ACCOUNT_PURGE_JOB, { deletionId: deletion.id }, { startAfter: purgeAfter, em });
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
      await recordEvent(em, { accountId: key.accountId }, 'account.deletion_canceled', { id: pending.id });
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
    // For an UPDATE, TypeORM's postgres driver answers [rows, rowCount], not the rows.
    const [claimed]: [Array<{ account_id: string }>, number] = await this.dataSource.query(
      `UPDATE account_deletions SET status = 'purging'
        WHERE id = $1 AND ((status = 'scheduled' AND purge_after <= now()) OR status = 'purging')
        RETURNING account_id`,
      [deletionId],
    );
    if (claimed[0] === undefined) return;
    const accountId = Number(claimed[0].account_id);
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
