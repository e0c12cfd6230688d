import { sql } from '../../src/database/sql';
import { eventually } from '../support/app';
import { lastEventId } from '../support/events';
import {
  chargeRequests,
  intentsOf,
  lineOf,
  lineWhen,
  postStripeEvent,
  renew,
  rollTo,
  stripeSubscription,
  StripeSubscriptionsHarness,
  subOf,
  subscriptionEvents,
  withStripeSubscriptions,
} from '../support/stripe-subscriptions';
import type { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';

const DAY = 86_400_000;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** Until the stand-in has seen `n` charge requests of the subscription. */
const requested = (h: StripeSubscriptionsHarness, subId: number, n: number) =>
  eventually(async () => (chargeRequests(h, subId).length >= n ? chargeRequests(h, subId) : undefined), 30000);

const savePaymentMethod = (h: StripeSubscriptionsHarness, sub: UserSubscriptionEntity, pm: string) =>
  sql(h.t.db, `UPDATE payment_customers SET payment_method_id = $1 WHERE user_id = $2`, [pm, sub.userId]);

/**
 * docs/payments.md, "Failures and retries": a declined or unauthenticated off-session charge makes
 * the subscription `past_due` for the site's dunning window and is retried on our schedule (1, 3,
 * 5 and 7 days after), never Stripe's; Stripe answering 5xx or not at all retries the same attempt
 * under the same idempotency key, charging once.
 */
describe('payments: subscription charges through Stripe that fail', () => {
  const h = withStripeSubscriptions('stripe-sub-failures');
  const payUrl = (sub: UserSubscriptionEntity, entryId: number) =>
    `/api/v2/sites/${h.a.siteName}/users/${sub.userId}/subscriptions/${sub.id}/charges/${entryId}/pay`;

  it('a declined card: past_due with its window, the failure on the line, retried a day later; a replaced card pays it', async () => {
    const sub = await stripeSubscription(h, 'pm_card_chargeDeclined');
    const after = await lastEventId(h.t);
    const renewal = await renew(h, sub);
    const due = h.now;
    const failed = await lineWhen(h, renewal.id, (e) => e.chargeAttempts === 1);
    expect(failed).toEqual(
      expect.objectContaining({
        status: 'pending',
        failureCode: 'card_declined',
        failureMessage: 'Your card was declined.',
        failedAt: due,
        nextAttemptAt: new Date(due.getTime() + DAY),
      }),
    );
    expect(await subOf(h, sub.id)).toEqual(
      expect.objectContaining({ status: 'past_due', unpaidCancelAt: new Date(due.getTime() + 14 * DAY) }),
    );
    expect(
      (await subscriptionEvents(h, sub.id, after)).map((e) => [e.name, e.payload.change ?? e.payload.status]),
    ).toEqual([
      ['user.subscription.updated', 'renewed'],
      ['user.subscription.charged', 'pending'],
      ['user.subscription.updated', 'payment_due'],
    ]);
    expect(chargeRequests(h, sub.id).map((r) => r.status)).toEqual([402]);

    await savePaymentMethod(h, sub, 'pm_card_visa');
    // Not before its time.
    await rollTo(h, new Date(due.getTime() + DAY - 1));
    await new Promise((r) => setTimeout(r, 1500));
    expect(chargeRequests(h, sub.id)).toHaveLength(1);
    await rollTo(h, new Date(due.getTime() + DAY));
    const paid = await lineWhen(h, renewal.id, (e) => e.status === 'paid');
    const requests = chargeRequests(h, sub.id);
    expect(requests.map((r) => [r.status, r.idempotencyKey])).toEqual([
      [402, `sitebase-charge-${h.a.siteId}-${renewal.id}-1`],
      [200, `sitebase-charge-${h.a.siteId}-${renewal.id}-2`],
    ]);
    expect(requests[1].params).toEqual(
      expect.objectContaining({ payment_method: 'pm_card_visa', off_session: 'true' }),
    );
    const succeeded = intentsOf(h, renewal.id).filter((pi) => pi.status === 'succeeded');
    expect(succeeded).toHaveLength(1);
    expect(paid).toEqual(
      expect.objectContaining({
        paidWith: 'stripe',
        processorChargeId: succeeded[0].id,
        chargeAttempts: 1,
        nextAttemptAt: null,
      }),
    );
    expect(await subOf(h, sub.id)).toEqual(expect.objectContaining({ status: 'active', unpaidCancelAt: null }));
    expect(
      (await subscriptionEvents(h, sub.id, after)).slice(3).map((e) => [e.name, e.payload.change ?? e.payload.status]),
    ).toEqual([
      ['user.subscription.charged', 'paid'],
      ['user.subscription.updated', 'payment_received'],
    ]);
  });

  it('the operator’s pay route asks Stripe again now and shows the last failure', async () => {
    const sub = await stripeSubscription(h, 'pm_card_chargeDeclinedInsufficientFunds');
    const renewal = await renew(h, sub);
    await lineWhen(h, renewal.id, (e) => e.chargeAttempts === 1);
    const res = await h.a.api.post(payUrl(sub, renewal.id)).send({}).expect(200);
    expect(res.body.charge).toEqual(
      expect.objectContaining({
        id: renewal.id,
        status: 'pending',
        failure: {
          code: 'card_declined',
          message: 'Your card has insufficient funds.',
          attempts: 1,
          failedAt: ISO,
          // Asked now: the planned retry is this attempt.
          nextAttemptAt: null,
        },
      }),
    );
    expect(res.body.subscription.status).toBe('past_due');
    const second = await lineWhen(h, renewal.id, (e) => e.chargeAttempts === 2);
    expect(second.nextAttemptAt).toEqual(new Date(h.now.getTime() + 2 * DAY));
    expect(chargeRequests(h, sub.id).map((r) => r.idempotencyKey)).toEqual([
      `sitebase-charge-${h.a.siteId}-${renewal.id}-1`,
      `sitebase-charge-${h.a.siteId}-${renewal.id}-2`,
    ]);
  });

  it('retried 1, 3, 5 and 7 days after the first failure, then the dunning window ends it `canceled_unpaid`', async () => {
    const sub = await stripeSubscription(h, 'pm_card_chargeDeclined');
    const renewal = await renew(h, sub);
    const due = h.now;
    await lineWhen(h, renewal.id, (e) => e.chargeAttempts === 1);
    for (const [attempt, day] of [
      [2, 1],
      [3, 3],
      [4, 5],
      [5, 7],
    ]) {
      await rollTo(h, new Date(due.getTime() + day * DAY));
      const line = await lineWhen(h, renewal.id, (e) => e.chargeAttempts === attempt);
      expect(line.failedAt).toEqual(new Date(due.getTime() + day * DAY));
      expect(line.nextAttemptAt).toEqual(attempt < 5 ? new Date(due.getTime() + (day + 2) * DAY) : null);
      expect(await subOf(h, sub.id)).toEqual(
        expect.objectContaining({ status: 'past_due', unpaidCancelAt: new Date(due.getTime() + 14 * DAY) }),
      );
    }
    const after = await lastEventId(h.t);
    await rollTo(h, new Date(due.getTime() + 14 * DAY));
    expect(await subOf(h, sub.id)).toEqual(
      expect.objectContaining({ status: 'canceled', cancelReason: 'unpaid', unpaidCancelAt: null }),
    );
    expect((await subscriptionEvents(h, sub.id, after)).map((e) => [e.name, e.payload.change])).toEqual([
      ['user.subscription.canceled', 'canceled_unpaid'],
    ]);
    expect((await lineOf(h, renewal.id)).status).toBe('pending');
    expect(chargeRequests(h, sub.id)).toHaveLength(5);
  });

  it('a card that needs authentication off-session: past_due, `authentication_required`, for the site to bring the customer back', async () => {
    const sub = await stripeSubscription(h, 'pm_card_authenticationRequired');
    const renewal = await renew(h, sub);
    const line = await lineWhen(h, renewal.id, (e) => e.chargeAttempts === 1);
    expect(line).toEqual(expect.objectContaining({ status: 'pending', failureCode: 'authentication_required' }));
    expect((await subOf(h, sub.id)).status).toBe('past_due');
  });

  it('no saved payment method: a failed attempt `no_payment_method`, nothing asked of Stripe', async () => {
    const sub = await stripeSubscription(h, null);
    const renewal = await renew(h, sub);
    const line = await lineWhen(h, renewal.id, (e) => e.chargeAttempts === 1);
    expect(line).toEqual(expect.objectContaining({ status: 'pending', failureCode: 'no_payment_method' }));
    expect((await subOf(h, sub.id)).status).toBe('past_due');
    expect(chargeRequests(h, sub.id)).toEqual([]);
  });

  it('Stripe answering 500: the same attempt is tried again under its key (the client, then the job), one intent, paid', async () => {
    const sub = await stripeSubscription(h);
    h.standIn.failNext({ status: 500, times: 3, match: (r) => chargeRequests(h, sub.id).includes(r) });
    const renewal = await renew(h, sub);
    await lineWhen(h, renewal.id, (e) => e.status === 'paid');
    const requests = chargeRequests(h, sub.id);
    expect(requests.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(requests.map((r) => r.idempotencyKey))).toEqual(
      new Set([`sitebase-charge-${h.a.siteId}-${renewal.id}-1`]),
    );
    expect(intentsOf(h, renewal.id)).toHaveLength(1);
    expect(await lineOf(h, renewal.id)).toEqual(expect.objectContaining({ chargeAttempts: 0, failureCode: null }));
    expect((await subOf(h, sub.id)).status).toBe('active');
  });

  it('Stripe not answering (a timeout): tried again under the same key, one intent, paid', async () => {
    const sub = await stripeSubscription(h);
    h.standIn.hangNext({ times: 1, match: (r) => chargeRequests(h, sub.id).includes(r) });
    const renewal = await renew(h, sub);
    await lineWhen(h, renewal.id, (e) => e.status === 'paid');
    const requests = chargeRequests(h, sub.id);
    expect(requests.map((r) => [r.status, r.idempotencyKey])).toEqual([
      [0, `sitebase-charge-${h.a.siteId}-${renewal.id}-1`],
      [200, `sitebase-charge-${h.a.siteId}-${renewal.id}-1`],
    ]);
    expect(intentsOf(h, renewal.id)).toHaveLength(1);
  });

  it('Stripe’s payment_failed event before the job’s answer records the failure once', async () => {
    const sub = await stripeSubscription(h, 'pm_card_chargeDeclined');
    let hanging = true;
    h.standIn.hangNext({ times: 5, match: (r) => hanging && chargeRequests(h, sub.id).includes(r) });
    const after = await lastEventId(h.t);
    const renewal = await renew(h, sub);
    const [asked] = await requested(h, sub.id, 1);
    hanging = false;
    // What Stripe did with the job's request: declined it.
    const declined = await h.stripe
      .get(h.a)!
      .paymentIntents.create(asked.params as never, { idempotencyKey: asked.idempotencyKey! })
      .catch((err: { raw?: { payment_intent?: { id: string } } }) => err.raw?.payment_intent);
    expect(declined?.id).toMatch(/^pi_/);
    const res = await postStripeEvent(h, h.a, h.standIn.eventFor('payment_intent.payment_failed', declined!.id));
    expect(res.body).toEqual(expect.objectContaining({ outcome: 'applied' }));
    expect(await lineOf(h, renewal.id)).toEqual(
      expect.objectContaining({ chargeAttempts: 1, failureCode: 'card_declined', status: 'pending' }),
    );
    // The job's retry replays the decline: already recorded.
    await eventually(async () => chargeRequests(h, sub.id).some((r) => r.replayed) || undefined, 30000);
    await new Promise((r) => setTimeout(r, 500));
    expect((await lineOf(h, renewal.id)).chargeAttempts).toBe(1);
    expect((await subscriptionEvents(h, sub.id, after)).filter((e) => e.payload.change === 'payment_due')).toHaveLength(
      1,
    );
  });

  afterAll(() => {
    expect(h.standIn.invalid()).toEqual([]);
    expect(h.standIn.validatedCount).toBeGreaterThan(20);
  });
});
