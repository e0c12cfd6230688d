import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, QueryDeepPartialEntity, Repository, SelectQueryBuilder } from 'typeorm';
import {
  applyKeysetShape,
  KeysetColumn,
  keysetPage,
  keysetParameters,
  keysetShape,
  Page,
} from '../../common/pagination/page';
import { ShapedReads } from '../../database/fast-read';
import { sql } from '../../database/sql';
import { UserSubscriptionQueryDto } from '../dto/subscription.dto';
import { SubscriptionEntryEntity } from '../entities/subscription-entry.entity';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';

const NEWEST: KeysetColumn[] = [{ expr: 's.id', type: 'number' }];

/** What an order says of who pays its subscription: its processor, and the mode it was paid in. */
export interface OrderCollector {
  payment_processor: string;
  payment_mode: 'test' | 'live' | null;
}

/**
 * The subscriptions' queries (docs/users.md, "Subscriptions"): the list on the fast read path,
 * the start from an order, and the period job's claims (SKIP LOCKED: instances share the work).
 */
@Injectable()
export class UserSubscriptionsRepository {
  private readonly listReads = new ShapedReads<UserSubscriptionEntity>();

  constructor(
    @InjectRepository(UserSubscriptionEntity) private readonly subscriptions: Repository<UserSubscriptionEntity>,
  ) {}

  /** A user's subscriptions, newest first; `status` filters them. */
  async listOf(userId: number, query: UserSubscriptionQueryDto): Promise<Page<UserSubscriptionEntity>> {
    const { entities } = await this.listReads.read(
      { ...keysetShape(query), status: Boolean(query.status) },
      { userId, status: query.status, ...keysetParameters(NEWEST, query) },
      (shape) => {
        const qb = this.subscriptions.createQueryBuilder('s').where('s.user_id = :userId');
        if (shape.status) qb.andWhere('s.status = :status');
        return applyKeysetShape(qb, NEWEST, shape);
      },
    );
    return keysetPage(entities, query.limit, (s) => [s.id]);
  }

  /** Makes the subscription unless its order line has one already: true when this call made it. */
  async insertOnce(em: EntityManager, values: QueryDeepPartialEntity<UserSubscriptionEntity>): Promise<boolean> {
    const inserted = await em
      .createQueryBuilder()
      .insert()
      .into(UserSubscriptionEntity)
      .values(values)
      .orIgnore()
      .returning(['id'])
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }

  /** The processor and mode an order of the site was paid with (undefined: no such order). */
  async orderCollector(em: EntityManager, siteId: number, orderId: number): Promise<OrderCollector | undefined> {
    const { rows } = await sql<OrderCollector>(
      em,
      'SELECT payment_processor, payment_mode FROM orders WHERE id = $1 AND site_id = $2',
      [orderId, siteId],
    );
    return rows[0];
  }

  /** The address an order of the site was placed with (null or undefined: none). */
  async orderCustomerEmail(em: EntityManager, siteId: number, orderId: number): Promise<string | null | undefined> {
    const { rows } = await sql<{ customer_email: string | null }>(
      em,
      'SELECT customer_email FROM orders WHERE id = $1 AND site_id = $2',
      [orderId, siteId],
    );
    return rows[0]?.customer_email;
  }

  /** `past_due` subscriptions whose dunning window closed by `now`, oldest deadline first. */
  claimUnpaid(em: EntityManager, now: Date, limit: number): Promise<UserSubscriptionEntity[]> {
    return claimed(
      em
        .createQueryBuilder(UserSubscriptionEntity, 's')
        .where("s.status = 'past_due'")
        .andWhere('s.unpaid_cancel_at <= :now', { now })
        .orderBy('s.unpaid_cancel_at', 'ASC'),
      limit,
    );
  }

  /** Running subscriptions whose period ended by `now`, oldest end first. */
  claimEndedPeriods(em: EntityManager, now: Date, limit: number): Promise<UserSubscriptionEntity[]> {
    return claimed(
      em
        .createQueryBuilder(UserSubscriptionEntity, 's')
        .where("s.status IN ('trialing', 'active', 'past_due')")
        .andWhere('s.current_period_end <= :now', { now })
        .orderBy('s.current_period_end', 'ASC'),
      limit,
    );
  }

  /** Running subscriptions with a pending line whose retry (`nextAttemptAt`) came by `now`. */
  claimDueRetries(em: EntityManager, now: Date, limit: number): Promise<UserSubscriptionEntity[]> {
    return claimed(
      em
        .createQueryBuilder(UserSubscriptionEntity, 's')
        .where("s.status IN ('trialing', 'active', 'past_due')")
        .andWhere(
          `EXISTS (SELECT 1 FROM user_subscription_entries e WHERE e.subscription_id = s.id
              AND e.status = 'pending' AND e.next_attempt_at IS NOT NULL AND e.next_attempt_at <= :now)`,
          { now },
        )
        .orderBy('s.id', 'ASC'),
      limit,
    );
  }

  /** Deletes the ledger lines of these subscriptions (an erasure); answers how many. */
  async deleteEntries(em: EntityManager, subscriptionIds: number[]): Promise<number> {
    const entries = await em
      .createQueryBuilder()
      .delete()
      .from(SubscriptionEntryEntity)
      .where('subscription_id IN (:...ids)', { ids: subscriptionIds })
      .execute();
    return entries.affected ?? 0;
  }
}

/** The first `limit` rows, each under its row lock; rows another transaction holds are skipped. */
function claimed(qb: SelectQueryBuilder<UserSubscriptionEntity>, limit: number): Promise<UserSubscriptionEntity[]> {
  return qb.limit(limit).setLock('pessimistic_write').setOnLocked('skip_locked').getMany();
}
