import request from 'supertest';
import { CreditEntryEntity } from '../../src/users/entities/credit-entry.entity';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { CreditsService } from '../../src/users/credits/credits.service';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { eventsOf, lastEventId } from '../support/events';
import { ISO } from '../support/matchers';
import { expectProblem } from '../support/problem';
import { Tenant, withTenants } from '../support/tenant';

describe('site users: credits', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  const users = (x: Tenant, rest = '') => `/api/v2/sites/${x.siteName}/users${rest}`;
  const entries = () => ctx.t.db.getRepository(CreditEntryEntity);

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  async function user(x: Tenant, email: string): Promise<{ id: number; token: string }> {
    const u = await ctx.t.db
      .getRepository(SiteUserEntity)
      .save({ siteId: x.siteId, email, name: '', status: 'active', metadata: {} });
    const { token } = await ctx.t.db.transaction((em) => ctx.t.app.get(SessionsService).create(em, u, {}));
    return { id: u.id, token };
  }

  it('grants: 201, the ledger line, the balance, credits.granted; an Idempotency-Key counts it once', async () => {
    const u = await user(a, 'grant@example.com');
    const after = await lastEventId(ctx.t);
    const send = () =>
      a.api
        .post(users(a, `/${u.id}/credits/grant`))
        .set('Idempotency-Key', 'grant-1')
        .send({ amount: 500, reason: 'Welcome bonus', reference: 'promo' });
    const first = await send().expect(201);
    expect(first.body).toEqual({
      entry: {
        id: expect.any(Number),
        kind: 'grant',
        amount: 500,
        remaining: 500,
        reason: 'Welcome bonus',
        reference: 'promo',
        expiresAt: null,
        createdAt: ISO,
      },
      balance: 500,
    });
    const replay = await send().expect(201);
    expect(replay.body).toEqual(first.body);
    expect(await entries().countBy({ userId: u.id })).toBe(1);
    expect((await eventsOf(ctx.t, a, after)).map((e) => [e.name, e.payload])).toEqual([
      [
        'credits.granted',
        { userId: u.id, entryId: first.body.entry.id, amount: 500, balance: 500, reference: 'promo' },
      ],
    ]);
    const balance = await a.api.get(users(a, `/${u.id}/credits/balance`)).expect(200);
    expect(balance.body).toEqual({ balance: 500 });
  });

  it('spends the soonest-expiring grant first; a short balance is a 409 that takes nothing', async () => {
    const u = await user(a, 'spend@example.com');
    const soon = new Date(Date.now() + 3600_000).toISOString();
    await a.api
      .post(users(a, `/${u.id}/credits/grant`))
      .send({ amount: 100, reason: 'Forever' })
      .expect(201);
    await a.api
      .post(users(a, `/${u.id}/credits/grant`))
      .send({ amount: 50, reason: 'Expiring', expiresAt: soon })
      .expect(201);
    const spent = await a.api
      .post(users(a, `/${u.id}/credits/spend`))
      .send({ amount: 70, reason: 'A report', reference: 'r-1' })
      .expect(201);
    expect(spent.body).toEqual(
      expect.objectContaining({ balance: 80, entry: expect.objectContaining({ kind: 'spend', amount: -70 }) }),
    );
    const rows = await entries().find({ where: { userId: u.id, kind: 'grant' }, order: { id: 'ASC' } });
    expect(rows.map((r) => [r.reason, r.remaining])).toEqual([
      ['Forever', 80],
      ['Expiring', 0],
    ]);
    const before = await entries().countBy({ userId: u.id });
    expectProblem(
      await a.api.post(users(a, `/${u.id}/credits/spend`)).send({ amount: 81, reason: 'Too much' }),
      409,
      'insufficient_credits',
    );
    expect(await entries().countBy({ userId: u.id })).toBe(before);
    expect((await a.api.get(users(a, `/${u.id}/credits/balance`)).expect(200)).body.balance).toBe(80);
  });

  it('200 concurrent spends never take the balance below zero, and grants made meanwhile are not lost', async () => {
    const u = await user(a, 'race@example.com');
    await a.api
      .post(users(a, `/${u.id}/credits/grant`))
      .send({ amount: 100, reason: 'Start' })
      .expect(201);
    const spends = Array.from({ length: 200 }, () =>
      a.api.post(users(a, `/${u.id}/credits/spend`)).send({ amount: 1, reason: 'One' }),
    );
    const grants = Array.from({ length: 10 }, () =>
      a.api.post(users(a, `/${u.id}/credits/grant`)).send({ amount: 5, reason: 'Top-up' }),
    );
    const results = await Promise.all([...spends, ...grants]);
    const spendStatuses = results.slice(0, 200).map((r) => r.status);
    expect(results.slice(200).every((r) => r.status === 201)).toBe(true);
    const ok = spendStatuses.filter((s) => s === 201).length;
    expect(spendStatuses.filter((s) => s !== 201).every((s) => s === 409)).toBe(true);
    // 150 credits existed in all; every successful spend took one of them.
    expect(ok).toBeGreaterThanOrEqual(100);
    expect(ok).toBeLessThanOrEqual(150);
    const balance = (await a.api.get(users(a, `/${u.id}/credits/balance`)).expect(200)).body.balance as number;
    expect(balance).toBe(150 - ok);
    const [{ sum }] = await ctx.t.db.query<Array<{ sum: number }>>(
      'SELECT sum(amount)::int AS sum FROM user_credit_entries WHERE user_id = $1',
      [u.id],
    );
    expect(sum).toBe(balance);
    expect(await entries().countBy({ userId: u.id, kind: 'spend' })).toBe(ok);
  }, 60000);

  it('an expired grant stops counting at once; the hourly job writes its expiry line', async () => {
    const u = await user(a, 'expiry@example.com');
    await a.api
      .post(users(a, `/${u.id}/credits/grant`))
      .send({ amount: 30, reason: 'Short-lived', expiresAt: new Date(Date.now() + 60_000).toISOString() })
      .expect(201);
    await a.api
      .post(users(a, `/${u.id}/credits/grant`))
      .send({ amount: 10, reason: 'Lasting' })
      .expect(201);
    await ctx.t.db.query(
      `UPDATE user_credit_entries SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND reason = 'Short-lived'`,
      [u.id],
    );
    expect((await a.api.get(users(a, `/${u.id}/credits/balance`)).expect(200)).body.balance).toBe(10);
    expect(await ctx.t.app.get(CreditsService).writeExpiries()).toBeGreaterThanOrEqual(1);
    const expiry = await entries().findOneByOrFail({ userId: u.id, kind: 'expire' });
    expect(expiry).toEqual(expect.objectContaining({ amount: -30, reason: 'Expired' }));
    expect((await a.api.get(users(a, `/${u.id}/credits/balance`)).expect(200)).body.balance).toBe(10);
    expectProblem(
      await a.api
        .post(users(a, `/${u.id}/credits/grant`))
        .send({ amount: 1, reason: 'Past', expiresAt: '2020-01-01T00:00:00Z' }),
      400,
      'validation_failed',
    );
  });

  it('the user reads their own ledger and balance; operators read any, of their site only', async () => {
    const u = await user(a, 'ledger@example.com');
    await a.api
      .post(users(a, `/${u.id}/credits/grant`))
      .send({ amount: 20, reason: 'One' })
      .expect(201);
    await a.api
      .post(users(a, `/${u.id}/credits/spend`))
      .send({ amount: 5, reason: 'Two' })
      .expect(201);
    const auth = { authorization: `Bearer ${u.token}` };
    const mine = await request(ctx.t.server).get(users(a, '/me/credits?limit=1')).set(auth).expect(200);
    expect(mine.body.data.map((e: { kind: string }) => e.kind)).toEqual(['spend']);
    const next = await request(ctx.t.server)
      .get(users(a, `/me/credits?limit=1&cursor=${mine.body.pagination.nextCursor}`))
      .set(auth)
      .expect(200);
    expect(next.body.data.map((e: { kind: string }) => e.kind)).toEqual(['grant']);
    expect((await request(ctx.t.server).get(users(a, '/me/credits/balance')).set(auth).expect(200)).body).toEqual({
      balance: 15,
    });
    const operator = await a.api.get(users(a, `/${u.id}/credits`)).expect(200);
    expect(operator.body.data).toHaveLength(2);
    expectProblem(await b.api.get(users(b, `/${u.id}/credits/balance`)), 404, 'not_found');
    expectProblem(
      await b.api.post(users(b, `/${u.id}/credits/grant`)).send({ amount: 1, reason: 'x' }),
      404,
      'not_found',
    );
    expectProblem(
      await request(ctx.t.server)
        .post(users(a, `/${u.id}/credits/grant`))
        .set(auth)
        .send({ amount: 1, reason: 'x' }),
      403,
      'session_not_allowed',
    );
    const bad = await a.api.post(users(a, `/${u.id}/credits/grant`)).send({ amount: 0, reason: 'x' });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('amount');
  });
});
