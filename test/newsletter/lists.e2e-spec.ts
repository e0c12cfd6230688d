import request from 'supertest';
import { MembershipEntity } from '../../src/newsletter/entities/membership.entity';
import { NewsletterListEntity } from '../../src/newsletter/entities/newsletter-list.entity';
import { SubscriptionEntity } from '../../src/newsletter/entities/subscription.entity';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { withTenants } from '../support/tenant';
import { makeList, nl, subscribe } from './newsletter-fixtures';

describe('/api/v2/sites/:siteName/newsletter/lists', () => {
  const ctx = withTenants(2);
  const lists = () => ctx.t.db.getRepository(NewsletterListEntity);

  it('POST creates a list (201, Location, defaults), records newsletter.list.created', async () => {
    const [a] = ctx.tenants;
    const after = await lastEventId(ctx.t);
    const res = await a.api.post(nl(a, '/lists')).send({ name: 'Weekly digest', description: 'Fridays' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Weekly digest',
      description: 'Fridays',
      doubleOptIn: true,
      visibility: 'public',
      counts: { pending: 0, active: 0, unsubscribed: 0 },
      createdAt: ISO,
      updatedAt: ISO,
    });
    expect(res.headers.location).toMatch(new RegExp(`/api/v2/sites/${a.siteName}/newsletter/lists/${res.body.id}$`));
    expect(await lists().findOneByOrFail({ id: res.body.id })).toEqual(
      expect.objectContaining({ siteId: a.siteId, name: 'Weekly digest', doubleOptIn: true, visibility: 'public' }),
    );
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      {
        name: 'newsletter.list.created',
        payload: { id: res.body.id, name: 'Weekly digest', doubleOptIn: true, visibility: 'public' },
      },
    ]);
  });

  it('GET lists newest first with keyset pages and a visibility filter; GET one shows counts by status', async () => {
    const [, b] = ctx.tenants;
    const one = await makeList(b, { name: 'One' });
    const two = await makeList(b, { name: 'Two', visibility: 'private', doubleOptIn: false });
    const three = await makeList(b, { name: 'Three', doubleOptIn: false });
    const first = await b.api.get(nl(b, '/lists?limit=2')).expect(200);
    expect(first.body.data.map((l: { id: number }) => l.id)).toEqual([three.id, two.id]);
    expect(first.body.pagination).toEqual({ limit: 2, nextCursor: expect.any(String) });
    const second = await b.api.get(nl(b, `/lists?limit=2&cursor=${first.body.pagination.nextCursor}`)).expect(200);
    expect(second.body).toEqual({
      data: [expect.objectContaining({ id: one.id, name: 'One' })],
      pagination: { limit: 2, nextCursor: null },
    });
    const priv = await b.api.get(nl(b, '/lists?visibility=private')).expect(200);
    expect(priv.body.data.map((l: { id: number }) => l.id)).toEqual([two.id]);

    await subscribe(ctx.t, b, { email: 'x1@example.com', lists: [three.id] }).expect(202);
    await subscribe(ctx.t, b, { email: 'x2@example.com', lists: [three.id, one.id] }).expect(202);
    const got = await b.api.get(nl(b, `/lists/${three.id}`)).expect(200);
    expect(got.body.counts).toEqual({ pending: 0, active: 2, unsubscribed: 0 });
    const oneGot = await b.api.get(nl(b, `/lists/${one.id}`)).expect(200);
    expect(oneGot.body.counts).toEqual({ pending: 1, active: 0, unsubscribed: 0 });
  });

  it('PATCH changes what it gives and records newsletter.list.updated; an unchanged PATCH records nothing', async () => {
    const [a] = ctx.tenants;
    const list = await makeList(a, { name: 'Before' });
    const after = await lastEventId(ctx.t);
    const res = await a.api
      .patch(nl(a, `/lists/${list.id}`))
      .send({ name: 'After', doubleOptIn: false })
      .expect(200);
    expect(res.body).toEqual(expect.objectContaining({ id: list.id, name: 'After', doubleOptIn: false }));
    expect(await lists().findOneByOrFail({ id: list.id })).toEqual(
      expect.objectContaining({ name: 'After', doubleOptIn: false }),
    );
    await a.api
      .patch(nl(a, `/lists/${list.id}`))
      .send({ name: 'After' })
      .expect(200);
    expect((await eventsOf(ctx.t, a, after)).map((e) => e.name)).toEqual(['newsletter.list.updated']);
  });

  it('DELETE removes the list and its memberships, never the subscribers (204, newsletter.list.deleted)', async () => {
    const [a] = ctx.tenants;
    const list = await makeList(a, { name: 'Going', doubleOptIn: false });
    await subscribe(ctx.t, a, { email: 'stays@example.com', lists: [list.id] }).expect(202);
    const sub = await ctx.t.db
      .getRepository(SubscriptionEntity)
      .findOneByOrFail({ siteId: a.siteId, email: 'stays@example.com' });
    const after = await lastEventId(ctx.t);
    await a.api.delete(nl(a, `/lists/${list.id}`)).expect(204);
    expect(await lists().findOneBy({ id: list.id })).toBeNull();
    expect(await ctx.t.db.getRepository(MembershipEntity).countBy({ listId: list.id })).toBe(0);
    expect(await ctx.t.db.getRepository(SubscriptionEntity).findOneBy({ id: sub.id })).not.toBeNull();
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      {
        name: 'newsletter.list.deleted',
        payload: { id: list.id, name: 'Going', doubleOptIn: false, visibility: 'public' },
      },
    ]);
    await a.api.get(nl(a, `/lists/${list.id}`)).expect(404);
  });

  it('errors: no key 401, another site’s list 404 (unchanged), bad bodies 400 naming the field', async () => {
    const [a, b] = ctx.tenants;
    const list = await makeList(a, { name: 'Mine' });
    expectProblem(await request(ctx.t.server).get(nl(a, '/lists')), 401, 'missing_credential');
    expectProblem(await b.api.get(nl(b, `/lists/${list.id}`)), 404, 'not_found');
    expectProblem(await b.api.patch(nl(b, `/lists/${list.id}`)).send({ name: 'Theirs' }), 404, 'not_found');
    expectProblem(await b.api.delete(nl(b, `/lists/${list.id}`)), 404, 'not_found');
    expect((await lists().findOneByOrFail({ id: list.id })).name).toBe('Mine');
    const bad = await a.api.post(nl(a, '/lists')).send({ name: '', visibility: 'secret', extra: 1 });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'name', 'visibility']);
    expectProblem(await a.api.patch(nl(a, `/lists/${list.id}`)).send({ doubleOptIn: 'yes' }), 400, 'validation_failed');
  });
});
