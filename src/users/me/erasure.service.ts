import { forwardRef, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { UserPrincipal } from '../../common/auth/principal';
import { DeletionImpact } from '../../common/deletion/account-data.registry';
import { ErasedUser, UserDataRegistry } from '../../common/deletion/user-data.registry';
import { ConflictProblem, NotFoundProblem } from '../../common/errors/problems';
import { recordEvent } from '../../common/outbox/record-event';
import { QueueService } from '../../common/queue/queue.service';
import { SiteEntity } from '../../common/tenancy/entities/site.entity';
import { SiteContext } from '../../common/tenancy/site-context';
import { UsersConfig } from '../users.config';
import { SiteUserEntity } from '../entities/site-user.entity';
import { UserDeletionEntity } from '../entities/user-deletion.entity';
import { SessionsService } from '../auth/sessions.service';
import { USER_EVENTS } from '../users.events';

export const USER_ERASE_JOB = 'users.erase';

/** The job's payload: the erasure request to carry out. */
export interface UserEraseJobData {
  deletionId: number;
}

/**
 * A site user's erasure (GDPR, API.md §8; docs/users.md): scheduled with a grace period
 * (USER_DELETION_GRACE_SECONDS; 0: at once), cancelable until the job starts, and carried out
 * by every module's registered owner (UserDataRegistry), the user's own row last. Sessions end
 * when it is asked for; signing in again during the grace period gives a session that may only
 * read and cancel.
 */
@Injectable()
export class ErasureService implements OnModuleInit {
  private readonly logger = new Logger('UserErasure');

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: UserDataRegistry,
    private readonly queue: QueueService,
    @Inject(forwardRef(() => SessionsService)) private readonly sessions: SessionsService,
    private readonly config: UsersConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register<UserEraseJobData>(USER_ERASE_JOB, ({ deletionId }) => this.erase(deletionId));
  }

  async preview(
    site: SiteContext,
    principal: UserPrincipal,
  ): Promise<{ gracePeriodSeconds: number; impacts: DeletionImpact[] }> {
    const impacts: DeletionImpact[] = [];
    await this.dataSource.transaction('REPEATABLE READ', async (em) => {
      const user = await em.findOneOrFail(SiteUserEntity, { where: { id: principal.userId, siteId: site.id } });
      for (const owner of this.registry.list()) impacts.push(...(await owner.preview(em, site, erased(user))));
    });
    return { gracePeriodSeconds: this.config.USER_DELETION_GRACE_SECONDS, impacts };
  }

  /** Schedules the erasure and ends every session of the user; asking again answers the same request. */
  async schedule(site: SiteContext, principal: UserPrincipal): Promise<UserDeletionEntity> {
    const deletion = await this.dataSource.transaction(async (em) => {
      const user = await em.findOneOrFail(SiteUserEntity, {
        where: { id: principal.userId, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      const pending = await em.findOne(UserDeletionEntity, {
        where: { userId: user.id, siteId: site.id, status: In(['scheduled', 'erasing']) },
      });
      if (pending) return pending;
      const purgeAfter = new Date(Date.now() + this.config.USER_DELETION_GRACE_SECONDS * 1000);
      const deletion = await em.save(
        em.create(UserDeletionEntity, { siteId: site.id, userId: user.id, status: 'scheduled', purgeAfter }),
      );
      await em.update(SiteUserEntity, { id: user.id }, { deletionScheduledAt: new Date() });
      await this.sessions.revokeAll(em, user.id);
      await this.queue.send(USER_ERASE_JOB, { deletionId: deletion.id } satisfies UserEraseJobData, {
        startAfter: purgeAfter,
        em,
      });
      return deletion;
    });
    this.sessions.changed();
    return deletion;
  }

  async latest(site: SiteContext, principal: UserPrincipal): Promise<UserDeletionEntity> {
    const found = await this.dataSource.getRepository(UserDeletionEntity).findOne({
      where: { userId: principal.userId, siteId: site.id },
      order: { id: 'DESC' },
    });
    if (!found) throw new NotFoundProblem('Deletion request', 'deletion_not_found');
    return found;
  }

  async cancel(site: SiteContext, principal: UserPrincipal): Promise<UserDeletionEntity> {
    const canceled = await this.dataSource.transaction(async (em) => {
      const user = await em.findOneOrFail(SiteUserEntity, {
        where: { id: principal.userId, siteId: site.id },
        lock: { mode: 'pessimistic_write' },
      });
      const latest = await em.findOne(UserDeletionEntity, {
        where: { userId: user.id, siteId: site.id },
        order: { id: 'DESC' },
        lock: { mode: 'pessimistic_write' },
      });
      if (latest?.status === 'erasing')
        throw new ConflictProblem('deletion_in_progress', 'The erasure has started and can no longer be canceled');
      if (latest?.status !== 'scheduled') throw new NotFoundProblem('Scheduled deletion', 'deletion_not_found');
      latest.status = 'canceled';
      latest.canceledAt = new Date();
      await em.save(latest);
      await em.update(SiteUserEntity, { id: user.id }, { deletionScheduledAt: null });
      return latest;
    });
    this.sessions.changed();
    return canceled;
  }

  /** The job: claims a due request, then every owner erases its share; safe to run twice. */
  async erase(deletionId: number): Promise<void> {
    const claimed = await this.dataSource.transaction(async (em) => {
      const deletion = await em.findOne(UserDeletionEntity, {
        where: { id: deletionId },
        lock: { mode: 'pessimistic_write' },
      });
      const due =
        deletion?.status === 'erasing' || (deletion?.status === 'scheduled' && deletion.purgeAfter <= new Date());
      if (!deletion || !due) return null;
      if (deletion.status !== 'erasing') await em.update(UserDeletionEntity, { id: deletionId }, { status: 'erasing' });
      const user = await em.findOne(SiteUserEntity, { where: { id: deletion.userId, siteId: deletion.siteId } });
      const site = await em.findOneOrFail(SiteEntity, { where: { id: deletion.siteId } });
      return { deletion, user, site: { id: site.id, name: site.name, accountId: site.accountId } };
    });
    if (!claimed) return;
    const { deletion, user, site } = claimed;
    const summary: Record<string, number> = { ...(deletion.summary ?? {}) };
    // A crash after the user's row went leaves nothing of theirs to find: the request completes.
    if (user) {
      for (const owner of this.registry.list()) {
        const counts = await this.dataSource.transaction((em) => owner.erase(em, site, erased(user)));
        for (const [resource, n] of Object.entries(counts)) summary[resource] = (summary[resource] ?? 0) + n;
      }
    }
    await this.dataSource.transaction(async (em) => {
      await em.update(
        UserDeletionEntity,
        { id: deletionId },
        { status: 'completed', completedAt: new Date(), summary },
      );
      await recordEvent(em, site, USER_EVENTS.deleted, { id: deletion.userId });
    });
    this.sessions.changed();
    this.logger.log({ siteId: site.id, userId: deletion.userId, summary }, 'Site user erased');
  }
}

function erased(user: SiteUserEntity): ErasedUser {
  return { id: user.id, email: user.email, name: user.name };
}
