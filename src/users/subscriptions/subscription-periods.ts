import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SiteDirectory } from '../../common/auth/principal';
import { EventScope } from '../../common/outbox/record-event';
import { Clock } from '../../common/scheduling/clock';
import { SiteContext } from '../../common/tenancy/site-context';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';
import { SubscriptionAttempts } from './subscription-attempts';
import { SubscriptionBilling } from './subscription-billing';
import { recordSubscription } from './subscription-ledger';
import { addInterval, periodEndAction } from './subscription-status';
import { UserSubscriptionsRepository } from './user-subscriptions.repository';
import { USER_EVENTS } from '../users.events';

const PERIOD_BATCH = 200;

/**
 * Where a subscription's periods begin and end (docs/users.md, "Subscriptions"): the period job
 * and resumes. A new period starts only with its `renewal` line, collected at once; a charge
 * still unpaid at the end of the dunning window (`unpaidCancelAt`), or of its period, ends the
 * subscription.
 */
@Injectable()
export class SubscriptionPeriods {
  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: SubscriptionBilling,
    private readonly attempts: SubscriptionAttempts,
    private readonly clock: Clock,
    private readonly sites: SiteDirectory,
    private readonly subscriptions: UserSubscriptionsRepository,
  ) {}

  /**
   * The period job (every minute): first the dunning sweep, `past_due` subscriptions whose
   * `unpaidCancelAt` came are canceled (`unpaid`), whatever their period's length; then
   * subscriptions whose period ended are canceled (a scheduled cancel, or a period charge left
   * unpaid), or renew period by period up to `now` (each with its charge); last, the processor is
   * asked again for lines whose retry came (`nextAttemptAt`). Claimed with SKIP
   * LOCKED, so instances share the work. Answers how many it handled.
   */
  async rollPeriods(now = this.clock.now()): Promise<number> {
    const unpaid = await this.inBatches(
      (em) => this.subscriptions.claimUnpaid(em, now, PERIOD_BATCH),
      (em, scope, sub) => this.cancelUnpaid(em, scope, sub),
    );
    const ended = await this.inBatches(
      (em) => this.subscriptions.claimEndedPeriods(em, now, PERIOD_BATCH),
      (em, scope, sub) => this.endPeriod(em, scope, sub, now),
    );
    // Our retries of a processor's failed charges (their `nextAttemptAt`), after the sweep ended what its window closed.
    const retried = await this.inBatches(
      (em) => this.subscriptions.claimDueRetries(em, now, PERIOD_BATCH),
      (em, scope, sub) => this.attempts.retryDue(em, scope, sub, now),
    );
    return unpaid + ended + retried;
  }

  /** `act` on what `claim` takes, PERIOD_BATCH rows a transaction, each under its row lock (others' skipped). */
  private async inBatches(
    claim: (em: EntityManager) => Promise<UserSubscriptionEntity[]>,
    act: (em: EntityManager, scope: EventScope, sub: UserSubscriptionEntity) => Promise<void>,
  ): Promise<number> {
    let total = 0;
    const scopes = new Map<number, EventScope>();
    for (;;) {
      const n = await this.dataSource.transaction(async (em) => {
        const due = await claim(em);
        for (const sub of due) {
          const scope = scopes.get(sub.siteId) ?? (await this.scopeOf(sub.siteId));
          scopes.set(sub.siteId, scope);
          await act(em, scope, sub);
        }
        return due.length;
      });
      total += n;
      if (n < PERIOD_BATCH) return total;
    }
  }

  /**
   * `past_due → canceled` (`unpaid`) at `unpaidCancelAt` (the end of the dunning window, or of the
   * period if sooner): no new period, and the unpaid line stays `pending` in the ledger.
   */
  private async cancelUnpaid(em: EntityManager, scope: EventScope, sub: UserSubscriptionEntity): Promise<void> {
    const previous = sub.status;
    Object.assign(sub, {
      status: 'canceled',
      canceledAt: sub.unpaidCancelAt ?? sub.currentPeriodEnd,
      cancelReason: 'unpaid',
      cancelAtPeriodEnd: false,
      unpaidCancelAt: null,
      version: sub.version + 1,
    });
    await em.save(sub);
    await recordSubscription(em, scope, USER_EVENTS.subscriptionCanceled, sub, previous, 'canceled_unpaid');
  }

  /** The resume job of a pause with a date: only if that pause is still the subscription's state. */
  async resumeDue({ id, version }: { id: number; version: number }): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const sub = await em.findOne(UserSubscriptionEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!sub || sub.status !== 'paused' || sub.version !== version) return;
      await this.resume(em, await this.scopeOf(sub.siteId), sub);
    });
  }

  /**
   * `paused → active`. Inside its period nothing is owed (the period is paid); after it lapsed, a
   * new period starts now with its `renewal` line, collected (`past_due` while it is unpaid).
   */
  async resume(em: EntityManager, scope: EventScope, sub: UserSubscriptionEntity): Promise<UserSubscriptionEntity> {
    const previous = sub.status;
    const now = this.clock.now();
    const lapsed = sub.currentPeriodEnd.getTime() <= now.getTime();
    Object.assign(sub, { status: 'active', pausedAt: null, resumesAt: null, version: sub.version + 1 });
    if (lapsed) {
      sub.currentPeriodStart = now;
      sub.currentPeriodEnd = addInterval(now, sub.interval, sub.intervalCount);
    }
    await em.save(sub);
    await recordSubscription(em, scope, USER_EVENTS.subscriptionUpdated, sub, previous, 'resumed');
    if (lapsed) await this.billing.renewal(em, scope, sub);
    return sub;
  }

  private async endPeriod(em: EntityManager, scope: EventScope, sub: UserSubscriptionEntity, now: Date): Promise<void> {
    while (sub.currentPeriodEnd.getTime() <= now.getTime()) {
      const unpaid = sub.status === 'past_due' && (await this.billing.hasUnpaidPeriodLine(em, sub));
      const action = periodEndAction(sub.status, sub.cancelAtPeriodEnd, unpaid);
      if (action === 'none') return;
      if (action === 'cancel_unpaid') return this.cancelUnpaid(em, scope, sub);
      const previous = sub.status;
      sub.version += 1;
      if (action === 'cancel') {
        Object.assign(sub, { status: 'canceled', canceledAt: sub.currentPeriodEnd, cancelAtPeriodEnd: false });
        await em.save(sub);
        await recordSubscription(em, scope, USER_EVENTS.subscriptionCanceled, sub, previous, 'canceled');
        return;
      }
      // The next period follows this one; one the job missed is still a period, with its charge.
      sub.currentPeriodStart = sub.currentPeriodEnd;
      sub.currentPeriodEnd = addInterval(sub.currentPeriodStart, sub.interval, sub.intervalCount);
      sub.status = 'active';
      await em.save(sub);
      const change = previous === 'trialing' ? 'trial_ended' : 'renewed';
      await recordSubscription(em, scope, USER_EVENTS.subscriptionUpdated, sub, previous, change);
      await this.billing.renewal(em, scope, sub);
    }
  }

  /** A site as events and jobs need it, from the site directory's cache. */
  private async scopeOf(siteId: number): Promise<SiteContext> {
    const site = await this.sites.findById(siteId);
    if (!site) throw new Error(`Site ${siteId} is gone`);
    return site;
  }
}
