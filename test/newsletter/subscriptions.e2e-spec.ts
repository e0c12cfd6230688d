import request from 'supertest';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { MembershipEntity } from '../../src/newsletter/entities/membership.entity';
import { SubscriptionEntity } from '../../src/newsletter/entities/subscription.entity';
import { SuppressionEntity } from '../../src/newsletter/entities/suppression.entity';
import { emailHash } from '../../src/newsletter/audience/subscription-writer';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { ISO, NULL_OR_ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';
import { makeList, nl, subscribe } from './newsletter-fixtures';

describe('/api/v2/sites/:siteName/newsletter/subscriptions (operators)', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  const subs = () => ctx.t.db.getRepository(SubscriptionEntity);
  const statusOf = async (subscriptionId: number) =>
    (await ctx.t.db.getRepository(MembershipEntity).find({ where: { subscriptionId }, order: { listId: 'ASC' } })).map(
      (m) => [m.listId, m.status],
    );
  /** A subscriber made active on `listIds` through the public route (single opt-in lists). */
  async function active(x: Tenant, email: string, listIds: number[], extra: Record<string, unknown> = {}) {
    await subscribe(ctx.t, x, { email, lists: listIds, ...extra }).expect(202);
    return subs().findOneByOrFail({ siteId: x.siteId, email });
  }

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  it('GET one and by-email: every field, with its lists and consent evidence', async () => {
    const list = await makeList(a, { name: 'Open', doubleOptIn: false });
    const sub = await active(a, 'ann@example.com', [list.id], { name: 'Ann', attributes: { plan: 'pro' } });
    const expected = {
      id: sub.id,
      email: 'ann@example.com',
      name: 'Ann',
      attributes: { plan: 'pro' },
      deliverability: 'deliverable',
      source: 'form',
      lists: [
        { listId: list.id, status: 'active', subscribedAt: ISO, unsubscribedAt: null, reason: null, updatedAt: ISO },
      ],
      consent: { at: ISO, ip: expect.any(String), userAgent: null, listIds: [list.id], wording: null },
      createdAt: ISO,
      updatedAt: ISO,
    };
    expect((await a.api.get(nl(a, `/subscriptions/${sub.id}`)).expect(200)).body).toEqual(expected);
    expect((await a.api.get(nl(a, '/subscriptions/by-email?email=ANN@example.com')).expect(200)).body).toEqual(
      expected,
    );
    expectProblem(await a.api.get(nl(a, '/subscriptions/by-email?email=nobody@example.com')), 404, 'not_found');
    expectProblem(await a.api.get(nl(a, '/subscriptions/by-email?email=nope')), 400, 'validation_failed');
  });

  it('GET lists newest first with keyset pages and every filter', async () => {
    const [one, two] = [await makeList(b, { name: 'L1', doubleOptIn: false }), await makeList(b, { name: 'L2' })];
    const s1 = await active(b, 'p1@alpha.example', [one.id], { attributes: { plan: 'pro' } });
    const s2 = await active(b, 'p2@beta.example', [one.id, two.id], { attributes: { plan: 'free' } });
    const s3 = await active(b, 'p3@alpha.example', [two.id]);
    await ctx.t.db.getRepository(SubscriptionEntity).update({ id: s3.id }, { deliverability: 'bounced' });
    const ids = async (query: string) =>
      (await b.api.get(nl(b, `/subscriptions${query}`)).expect(200)).body.data.map((s: { id: number }) => s.id);
    expect(await ids('')).toEqual([s3.id, s2.id, s1.id]);
    const page = await b.api.get(nl(b, '/subscriptions?limit=2')).expect(200);
    expect(page.body.pagination).toEqual({ limit: 2, nextCursor: expect.any(String) });
    expect(await ids(`?limit=2&cursor=${page.body.pagination.nextCursor}`)).toEqual([s1.id]);
    expect(await ids(`?listId=${one.id}`)).toEqual([s2.id, s1.id]);
    expect(await ids(`?listId=${two.id}&status=pending`)).toEqual([s3.id, s2.id]);
    expect(await ids(`?listId=${one.id}&status=pending`)).toEqual([]);
    expect(await ids('?status=active')).toEqual([s2.id, s1.id]);
    expect(await ids('?deliverability=bounced')).toEqual([s3.id]);
    expect(await ids('?emailContains=ALPHA')).toEqual([s3.id, s1.id]);
    expect(await ids('?emailContains=%25')).toEqual([]);
    expect(await ids('?attributeName=plan&attributeValue=pro')).toEqual([s1.id]);
    expect(await ids(`?createdFrom=${encodeURIComponent(s2.createdAt.toISOString())}`)).toEqual([s3.id, s2.id]);
    expect(await ids(`?createdTo=${encodeURIComponent(s2.createdAt.toISOString())}`)).toEqual([s1.id]);
    expectProblem(await b.api.get(nl(b, '/subscriptions?status=gone')), 400, 'validation_failed');
    expectProblem(await b.api.get(nl(b, '/subscriptions?cursor=forged')), 400, 'invalid_cursor');
  });

  it('list-membership: consent joins active; without it pending with a confirmation mail; leaving removes; a left list is a 409', async () => {
    const [x, y, z] = [
      await makeList(a, { name: 'X' }),
      await makeList(a, { name: 'Y' }),
      await makeList(a, { name: 'Z', doubleOptIn: false }),
    ];
    const sub = await active(a, 'mem@example.com', [z.id]);
    const after = await lastEventId(ctx.t);
    const res = await a.api
      .post(nl(a, `/subscriptions/${sub.id}/list-membership`))
      .send({ add: [x.id], consent: true, consentWording: 'Ticked at checkout' })
      .expect(200);
    expect(res.body.lists.map((m: { listId: number; status: string }) => [m.listId, m.status])).toEqual([
      [x.id, 'active'],
      [z.id, 'active'],
    ]);
    expect(res.body.consent).toEqual({
      at: ISO,
      ip: null,
      userAgent: null,
      listIds: [x.id],
      wording: 'Ticked at checkout',
    });
    await a.api
      .post(nl(a, `/subscriptions/${sub.id}/list-membership`))
      .send({ add: [y.id], remove: [z.id] })
      .expect(200);
    expect(await statusOf(sub.id)).toEqual([
      [x.id, 'active'],
      [y.id, 'pending'],
    ]);
    const mails = await ctx.t.db
      .getRepository(EmailMessageEntity)
      .find({ where: { recipient: 'mem@example.com' }, order: { id: 'ASC' } });
    expect(mails.map((m) => m.templateType)).toEqual(['newsletter.welcome', 'newsletter.confirmation']);
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      { name: 'newsletter.subscription.confirmed', payload: { id: sub.id, listIds: [x.id] } },
    ]);
    // The person leaves X; the operator cannot bring them back, even with consent.
    await a.api
      .post(nl(a, `/subscriptions/${sub.id}/status`))
      .send({ status: 'unsubscribed', listIds: [x.id], reason: 'asked' })
      .expect(200);
    const before = await snapshotDatabase(ctx.t.db);
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/list-membership`)).send({ add: [x.id], consent: true }),
      409,
      'transition_forbidden',
    );
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/list-membership`)).send({}),
      400,
      'validation_failed',
    );
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/list-membership`)).send({ add: [999999999] }),
      404,
      'not_found',
    );
  });

  it('status: unsubscribes with a reason (event by operator); other moves 409 with the row unchanged; deliverability rules', async () => {
    const list = await makeList(a, { name: 'St', doubleOptIn: false });
    const sub = await active(a, 'st@example.com', [list.id]);
    const after = await lastEventId(ctx.t);
    const res = await a.api
      .post(nl(a, `/subscriptions/${sub.id}/status`))
      .send({ status: 'unsubscribed', reason: 'Asked by phone' })
      .expect(200);
    expect(res.body.lists).toEqual([
      {
        listId: list.id,
        status: 'unsubscribed',
        subscribedAt: NULL_OR_ISO,
        unsubscribedAt: ISO,
        reason: 'Asked by phone',
        updatedAt: ISO,
      },
    ]);
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      {
        name: 'newsletter.subscription.unsubscribed',
        payload: { id: sub.id, listIds: [list.id], by: 'operator', reason: 'Asked by phone' },
      },
    ]);
    const before = await snapshotDatabase(ctx.t.db);
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/status`)).send({ status: 'active', reason: 'oops' }),
      409,
      'transition_forbidden',
    );
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    await a.api
      .post(nl(a, `/subscriptions/${sub.id}/status`))
      .send({ deliverability: 'complained', reason: 'FBL' })
      .expect(200);
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/status`)).send({ deliverability: 'deliverable', reason: 'x' }),
      409,
      'transition_forbidden',
    );
    expect((await subs().findOneByOrFail({ id: sub.id })).deliverability).toBe('complained');
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/status`)).send({ reason: 'x' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await a.api.post(nl(a, `/subscriptions/${sub.id}/status`)).send({ status: 'unsubscribed' }),
      400,
      'validation_failed',
    );
  });

  it('DELETE erases the subscriber (204, event); with suppressOnDelete only a hash stays', async () => {
    const list = await makeList(a, { name: 'Del', doubleOptIn: false });
    const plain = await active(a, 'gone@example.com', [list.id]);
    const after = await lastEventId(ctx.t);
    await a.api.delete(nl(a, `/subscriptions/${plain.id}`)).expect(204);
    expect(await subs().findOneBy({ id: plain.id })).toBeNull();
    expect(await ctx.t.db.getRepository(MembershipEntity).countBy({ subscriptionId: plain.id })).toBe(0);
    expect(await ctx.t.db.getRepository(SuppressionEntity).countBy({ siteId: a.siteId })).toBe(0);
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      { name: 'newsletter.subscription.deleted', payload: { id: plain.id } },
    ]);

    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { newsletter: { suppressOnDelete: true } } })
      .expect(200);
    const kept = await active(a, 'kept@example.com', [list.id]);
    await a.api.delete(nl(a, `/subscriptions/${kept.id}`)).expect(204);
    expect(await ctx.t.db.getRepository(SuppressionEntity).find({ where: { siteId: a.siteId } })).toEqual([
      { siteId: a.siteId, emailHash: emailHash('kept@example.com'), reason: 'deleted', createdAt: expect.any(Date) },
    ]);
    await a.api.delete(nl(a, `/subscriptions/${kept.id}`)).expect(404);
    await a.api
      .patch(`/api/v2/sites/${a.siteName}`)
      .send({ settings: { newsletter: { suppressOnDelete: null } } })
      .expect(200);
  });

  it('another site’s subscription is a 404 on every route, and nothing changes; no key is a 401', async () => {
    const list = await makeList(a, { name: 'Mine', doubleOptIn: false });
    const sub = await active(a, 'mine@example.com', [list.id]);
    const before = await snapshotDatabase(ctx.t.db);
    expectProblem(await b.api.get(nl(b, `/subscriptions/${sub.id}`)), 404, 'not_found');
    expectProblem(await b.api.delete(nl(b, `/subscriptions/${sub.id}`)), 404, 'not_found');
    expectProblem(
      await b.api.post(nl(b, `/subscriptions/${sub.id}/status`)).send({ status: 'unsubscribed', reason: 'x' }),
      404,
      'not_found',
    );
    expectProblem(
      await b.api.post(nl(b, `/subscriptions/${sub.id}/list-membership`)).send({ remove: [list.id] }),
      404,
      'not_found',
    );
    expectProblem(await b.api.get(nl(b, '/subscriptions/by-email?email=mine@example.com')), 404, 'not_found');
    expectProblem(await request(ctx.t.server).get(nl(a, '/subscriptions')), 401, 'missing_credential');
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  });
});
