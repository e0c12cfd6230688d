import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import request from 'supertest';
import { IsNull } from 'typeorm';
import { IdempotencyKeyEntity } from '../../src/common/idempotency/idempotency-key.entity';
import { ProductEntity } from '../../src/catalog/entities/product.entity';
import { ProductVariantEntity } from '../../src/catalog/entities/product-variant.entity';
import { ContactEntity } from '../../src/contacts/entities/contact.entity';
import { ContentItemEntity } from '../../src/content/entities/content-item.entity';
import { CampaignEntity } from '../../src/newsletter/entities/campaign.entity';
import { SubscriptionEntity } from '../../src/newsletter/entities/subscription.entity';
import { OrderEntity } from '../../src/orders/entities/order.entity';
import { OrderLineEntity } from '../../src/orders/entities/order-line.entity';
import { CreditEntryEntity } from '../../src/users/entities/credit-entry.entity';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { UserOtpEntity } from '../../src/users/entities/user-otp.entity';
import { UserSessionEntity } from '../../src/users/entities/user-session.entity';
import { hashOtpCode } from '../../src/users/auth/otp-code';
import { makeProduct, makeVariant, orderBody, ordersUrl } from '../support/commerce';
import { eventsOf, lastEventId } from '../support/events';
import { contentUrl } from '../support/factories';
import { expectProblem } from '../support/problem';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant } from '../support/tenant';

/**
 * Hundreds of parallel requests against the app listening on 127.0.0.1, each race checked on
 * the answers (no 500, the documented problem for the losers) and on the database afterwards.
 */
describe('concurrency: parallel requests on one row', () => {
  let t: TestApp;
  let x: Tenant;

  beforeAll(async () => {
    t = await startApp({
      env: {
        // The races below are the subject; the per-address and per-IP limits would refuse most of them first.
        USER_OTP_IP_HOURLY_LIMIT: '100000',
        USER_OTP_EMAIL_HOURLY_LIMIT: '100000',
        NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT: '100000',
        NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT: '100000',
        DB_POOL_SIZE: '20',
      },
    });
    // supertest reuses a listening server's address instead of opening one per request.
    await t.app.listen(0, '127.0.0.1');
    expect((t.server.address() as AddressInfo).address).toBe('127.0.0.1');
    x = await createTenant(t);
  });
  afterAll(() => t?.close());

  const anonymous = () => request(t.server);
  const users = (rest = '') => `/api/v2/sites/${x.siteName}/users${rest}`;
  const nl = (rest = '') => `/api/v2/sites/${x.siteName}/newsletter${rest}`;

  /** Fires `n` requests at once; fails on any 5xx, showing its body. */
  async function burst(n: number, make: (i: number) => request.Test): Promise<Response[]> {
    const results = await Promise.all(Array.from({ length: n }, (_, i) => make(i)));
    expect(results.filter((r) => r.status >= 500).map((r) => [r.status, r.body])).toEqual([]);
    return results;
  }
  const countOf = (results: Response[], status: number) => results.filter((r) => r.status === status).length;
  const statusesOf = (results: Response[]) => [...new Set(results.map((r) => r.status))].sort();

  describe('stock (catalog + orders)', () => {
    it('200 parallel orders of a variant with 7 units: exactly 7 sold, 193 × 409 out_of_stock, stock 0', async () => {
      const p = await makeProduct(x, { name: 'Poster', option1: 'Size', quantityAvailable: 1000 });
      const v = await makeVariant(x, p.id, { option1Value: 'A2', quantityAvailable: 7 });
      const results = await burst(200, (i) =>
        x.api.post(ordersUrl(x)).send({
          lines: [{ productId: p.id, variantId: v.id, quantity: 1 }],
          customer: { email: `buyer${i}@example.com` },
        }),
      );
      expect(statusesOf(results)).toEqual([201, 409]);
      expect(countOf(results, 201)).toBe(7);
      for (const r of results.filter((res) => res.status === 409)) {
        expectProblem(r, 409, 'out_of_stock');
        expect(r.body.detail).toBe('Not enough stock of Poster (A2) for 1');
      }
      const variant = await t.db.getRepository(ProductVariantEntity).findOneByOrFail({ id: v.id });
      expect(variant.quantityAvailable).toBe(0);
      // The product's own stock is not the variant's: untouched.
      expect((await t.db.getRepository(ProductEntity).findOneByOrFail({ id: p.id })).quantityAvailable).toBe(1000);
      const lines = await t.db.getRepository(OrderLineEntity).findBy({ variantId: v.id });
      expect(lines.reduce((n, l) => n + l.quantity, 0)).toBe(7);
      const ids = results.filter((r) => r.status === 201).map((r) => r.body.id as number);
      expect(new Set(lines.map((l) => l.orderId))).toEqual(new Set(ids));
    }, 60000);

    it('orders of two items in either order never deadlock or oversell: quantities add up to the stock taken', async () => {
      const a = await makeProduct(x, { name: 'Print A', quantityAvailable: 30 });
      const b = await makeProduct(x, { name: 'Print B', quantityAvailable: 30 });
      // Half list A first, half B first; each takes 2 of one and 1 of the other.
      const results = await burst(120, (i) =>
        x.api.post(ordersUrl(x)).send(
          orderBody(
            i % 2 === 0
              ? [
                  [a.id, 2],
                  [b.id, 1],
                ]
              : [
                  [b.id, 2],
                  [a.id, 1],
                ],
          ),
        ),
      );
      expect(statusesOf(results).every((s) => s === 201 || s === 409)).toBe(true);
      for (const r of results.filter((res) => res.status === 409)) expectProblem(r, 409, 'out_of_stock');
      const stock = async (id: number) =>
        (await t.db.getRepository(ProductEntity).findOneByOrFail({ id })).quantityAvailable as number;
      const sold = async (id: number) =>
        (await t.db.getRepository(OrderLineEntity).findBy({ productId: id })).reduce((n, l) => n + l.quantity, 0);
      expect(await stock(a.id)).toBeGreaterThanOrEqual(0);
      expect(await stock(b.id)).toBeGreaterThanOrEqual(0);
      expect(30 - (await stock(a.id))).toBe(await sold(a.id));
      expect(30 - (await stock(b.id))).toBe(await sold(b.id));
      // 3 units an order out of 60: at most 20 orders, and stock ran out of something.
      expect(countOf(results, 201)).toBeGreaterThanOrEqual(10);
      expect(countOf(results, 201)).toBeLessThanOrEqual(20);
      expect(Math.min(await stock(a.id), await stock(b.id))).toBeLessThan(3);
    }, 60000);
  });

  describe('credit balances (users)', () => {
    it('200 parallel debits of 1–5 credits never go below zero; accepted debits equal the balance change', async () => {
      const u = await t.db
        .getRepository(SiteUserEntity)
        .save({ siteId: x.siteId, email: 'spender@example.com', name: '', status: 'active', metadata: {} });
      await x.api
        .post(users(`/${u.id}/credits/grant`))
        .send({ amount: 300, reason: 'Start' })
        .expect(201);
      const amountOf = (i: number) => (i % 5) + 1;
      const results = await burst(200, (i) =>
        x.api.post(users(`/${u.id}/credits/spend`)).send({ amount: amountOf(i), reason: `spend ${i}` }),
      );
      expect(statusesOf(results).every((s) => s === 201 || s === 409)).toBe(true);
      for (const r of results.filter((res) => res.status === 409)) expectProblem(r, 409, 'insufficient_credits');
      const accepted = results
        .map((r, i) => (r.status === 201 ? amountOf(i) : 0))
        .reduce((sum, amount) => sum + amount, 0);
      // 600 credits asked for, 300 there: some were refused, and what was left cannot pay the smallest refused.
      expect(countOf(results, 409)).toBeGreaterThan(0);
      const balance = (await x.api.get(users(`/${u.id}/credits/balance`)).expect(200)).body.balance as number;
      expect(balance).toBe(300 - accepted);
      expect(balance).toBeGreaterThanOrEqual(0);
      const smallestRefused = Math.min(...results.map((r, i) => (r.status === 409 ? amountOf(i) : Infinity)));
      expect(balance).toBeLessThan(smallestRefused);
      const spends = await t.db.getRepository(CreditEntryEntity).findBy({ userId: u.id, kind: 'spend' });
      expect(spends).toHaveLength(countOf(results, 201));
      expect(spends.reduce((sum, e) => sum + Math.abs(e.amount), 0)).toBe(accepted);
      // Each answer's balance is one the ledger went through: all distinct, all >= 0.
      const seen = results.filter((r) => r.status === 201).map((r) => r.body.balance as number);
      expect(new Set(seen).size).toBe(seen.length);
      expect(Math.min(...seen)).toBe(balance);
    }, 60000);
  });

  describe('Idempotency-Key', () => {
    it('the same key and body 50 times at once: one order, stock taken once, the others replay or are in progress', async () => {
      const p = await makeProduct(x, { name: 'Lamp', quantityAvailable: 100 });
      const body = orderBody([[p.id, 3]]);
      const results = await burst(50, () => x.api.post(ordersUrl(x)).set('Idempotency-Key', `lamp-${p.id}`).send(body));
      expect(statusesOf(results).every((s) => s === 201 || s === 409)).toBe(true);
      const fresh = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
      expect(fresh).toHaveLength(1);
      for (const r of results.filter((res) => res.status === 201)) {
        expect(r.body).toEqual(fresh[0].body);
        expect(r.headers.location).toBe(fresh[0].headers.location);
      }
      for (const r of results.filter((res) => res.status === 409))
        expectProblem(r, 409, 'idempotency_request_in_progress');
      expect(await t.db.getRepository(OrderLineEntity).countBy({ productId: p.id })).toBe(1);
      expect((await t.db.getRepository(ProductEntity).findOneByOrFail({ id: p.id })).quantityAvailable).toBe(97);
      // Once settled, the key replays the one order.
      const replay = await x.api.post(ordersUrl(x)).set('Idempotency-Key', `lamp-${p.id}`).send(body).expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(fresh[0].body);
    }, 60000);

    it('the same key on a request that fails, 50 times at once: the failure for each, never a 500, no key kept', async () => {
      const p = await makeProduct(x, { name: 'Sold-out lamp', quantityAvailable: 0 });
      const key = `sold-out-${p.id}`;
      const results = await burst(50, () =>
        x.api
          .post(ordersUrl(x))
          .set('Idempotency-Key', key)
          .send(orderBody([[p.id, 1]])),
      );
      expect(statusesOf(results)).toEqual([409]);
      const codes = new Set(results.map((r) => r.body.code as string));
      expect([...codes].every((c) => c === 'out_of_stock' || c === 'idempotency_request_in_progress')).toBe(true);
      expect(codes.has('out_of_stock')).toBe(true);
      for (const r of results) expectProblem(r, 409, r.body.code as string);
      expect(await t.db.getRepository(OrderLineEntity).countBy({ productId: p.id })).toBe(0);
      // Failed requests are not stored: nothing is left under the key (it can be retried).
      expect(await t.db.getRepository(IdempotencyKeyEntity).countBy({ path: ordersUrl(x), state: 'processing' })).toBe(
        0,
      );
    }, 60000);

    it('parallel grants under one key count the credits once', async () => {
      const u = await t.db
        .getRepository(SiteUserEntity)
        .save({ siteId: x.siteId, email: 'granted@example.com', name: '', status: 'active', metadata: {} });
      const results = await burst(50, () =>
        x.api
          .post(users(`/${u.id}/credits/grant`))
          .set('Idempotency-Key', `grant-${u.id}`)
          .send({ amount: 25, reason: 'Bonus' }),
      );
      expect(statusesOf(results).every((s) => s === 201 || s === 409)).toBe(true);
      expect(countOf(results, 201)).toBeGreaterThanOrEqual(1);
      for (const r of results.filter((res) => res.status === 409))
        expectProblem(r, 409, 'idempotency_request_in_progress');
      expect(await t.db.getRepository(CreditEntryEntity).countBy({ userId: u.id })).toBe(1);
      expect((await x.api.get(users(`/${u.id}/credits/balance`)).expect(200)).body.balance).toBe(25);
    }, 60000);
  });

  describe('one-time codes (users sign-in)', () => {
    /** Asks for a code for `email`, then sets it to `code` (the mail is not what is tested here). */
    async function codeFor(email: string, code: string): Promise<UserOtpEntity> {
      await anonymous().post(users('/request-otp')).send({ email }).expect(202);
      const otps = t.db.getRepository(UserOtpEntity);
      const otp = await otps.findOneByOrFail({ siteId: x.siteId, email, consumedAt: IsNull() });
      await otps.update({ id: otp.id }, { codeHash: hashOtpCode(otp.salt, code) });
      return otp;
    }

    it('200 parallel wrong codes count at most the 5 attempts; the right code afterwards fails too', async () => {
      const email = 'guesser@example.com';
      const otp = await codeFor(email, '424242');
      const results = await burst(200, (i) =>
        anonymous()
          .post(users('/verify-otp'))
          .send({ email, code: String(100000 + i) }),
      );
      expect(statusesOf(results)).toEqual([401]);
      for (const r of results) expectProblem(r, 401, 'invalid_code');
      const after = await t.db.getRepository(UserOtpEntity).findOneByOrFail({ id: otp.id });
      expect(after.attempts).toBe(5);
      expect(after.consumedAt).toBeNull();
      const right = await anonymous().post(users('/verify-otp')).send({ email, code: '424242' });
      expectProblem(right, 401, 'invalid_code');
      expect(await t.db.getRepository(SiteUserEntity).countBy({ siteId: x.siteId, email })).toBe(0);
    }, 60000);

    it('the right code sent 50 times at once signs in once: one user, one session, the rest 401', async () => {
      const email = 'twin@example.com';
      await codeFor(email, '135790');
      const after = await lastEventId(t);
      const results = await burst(50, () => anonymous().post(users('/verify-otp')).send({ email, code: '135790' }));
      expect(statusesOf(results)).toEqual([200, 401]);
      expect(countOf(results, 200)).toBe(1);
      for (const r of results.filter((res) => res.status === 401)) expectProblem(r, 401, 'invalid_code');
      const [user] = await t.db.getRepository(SiteUserEntity).findBy({ siteId: x.siteId, email });
      expect(user).toBeDefined();
      expect(await t.db.getRepository(UserSessionEntity).countBy({ userId: user.id })).toBe(1);
      const names = (await eventsOf(t, x, after)).map((e) => e.name);
      expect(names.filter((n) => n === 'user.created')).toHaveLength(1);
      expect(names.filter((n) => n === 'user.signed_in')).toHaveLength(1);
    }, 60000);

    it('50 parallel code requests for one address issue one code (the resend wait holds)', async () => {
      const email = 'impatient@example.com';
      const results = await burst(50, () => anonymous().post(users('/request-otp')).send({ email }));
      expect(statusesOf(results)).toEqual([202]);
      expect(await t.db.getRepository(UserOtpEntity).countBy({ siteId: x.siteId, email })).toBe(1);
    }, 60000);
  });

  describe('unique values', () => {
    it('100 parallel creates with one explicit slug: one 201, 99 × 409 duplicate_slug, one row', async () => {
      const results = await burst(100, (i) =>
        x.api.post(contentUrl(x)).send({ title: `Launch ${i}`, slug: 'launch-day' }),
      );
      expect(statusesOf(results)).toEqual([201, 409]);
      expect(countOf(results, 201)).toBe(1);
      for (const r of results.filter((res) => res.status === 409)) expectProblem(r, 409, 'duplicate_slug');
      expect(await t.db.getRepository(ContentItemEntity).countBy({ siteId: x.siteId, slug: 'launch-day' })).toBe(1);
    }, 60000);

    it('60 parallel creates of one title (no slug): all 201, each with its own generated slug', async () => {
      const results = await burst(60, () => x.api.post(contentUrl(x)).send({ title: 'Spring sale' }));
      expect(statusesOf(results)).toEqual([201]);
      const slugs = results.map((r) => r.body.slug as string);
      expect(new Set(slugs)).toEqual(
        new Set(['spring-sale', ...Array.from({ length: 59 }, (_, i) => `spring-sale-${i + 2}`)]),
      );
      const rows = await t.db.getRepository(ContentItemEntity).findBy({ siteId: x.siteId, title: 'Spring sale' });
      expect(new Set(rows.map((r) => r.slug))).toEqual(new Set(slugs));
    }, 60000);

    it('60 parallel signups of one address: all answered alike, one subscription', async () => {
      const list = await x.api
        .post(nl('/lists'))
        .send({ name: 'News', doubleOptIn: false, visibility: 'public' })
        .expect(201);
      const after = await lastEventId(t);
      const results = await burst(60, () =>
        anonymous()
          .post(nl('/subscribe'))
          .send({ email: 'Crowd@Example.com', lists: [list.body.id] }),
      );
      expect(statusesOf(results)).toEqual([results[0].status]);
      expect(results[0].status).toBeLessThan(300);
      for (const r of results) expect(r.body).toEqual(results[0].body);
      expect(
        await t.db.getRepository(SubscriptionEntity).countBy({ siteId: x.siteId, email: 'crowd@example.com' }),
      ).toBe(1);
      const names = (await eventsOf(t, x, after)).map((e) => e.name);
      expect(names.filter((n) => n === 'newsletter.subscription.created')).toHaveLength(1);
    }, 60000);

    it('contacts keep every message (an address is not unique there): 100 posted at once are 100 rows', async () => {
      const results = await burst(100, (i) =>
        anonymous()
          .post(`/api/v2/sites/${x.siteName}/contacts`)
          .send({ name: 'Ada', email: 'Often@Example.com', message: `Message ${i}` }),
      );
      expect(statusesOf(results)).toEqual([201]);
      const rows = await t.db.getRepository(ContactEntity).findBy({ siteId: x.siteId, email: 'often@example.com' });
      expect(rows.map((r) => r.message).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `Message ${i}`).sort());
    }, 60000);

    it('30 users renamed at once to one address: one 200, 29 × 409 email_taken', async () => {
      const made = await t.db.getRepository(SiteUserEntity).save(
        Array.from({ length: 30 }, (_, i) => ({
          siteId: x.siteId,
          email: `renamed${i}@example.com`,
          name: '',
          status: 'active' as const,
          metadata: {},
        })),
      );
      const results = await burst(30, (i) => x.api.patch(users(`/${made[i].id}`)).send({ email: 'Same@Example.com' }));
      expect(statusesOf(results)).toEqual([200, 409]);
      expect(countOf(results, 200)).toBe(1);
      for (const r of results.filter((res) => res.status === 409)) expectProblem(r, 409, 'email_taken');
      expect(await t.db.getRepository(SiteUserEntity).countBy({ siteId: x.siteId, email: 'same@example.com' })).toBe(1);
    }, 60000);
  });

  describe('campaign state changes (newsletter)', () => {
    async function draftCampaign(name: string): Promise<{ id: number; etag: string }> {
      const list = await x.api
        .post(nl('/lists'))
        .send({ name: `${name} list` })
        .expect(201);
      const res = await x.api
        .post(nl('/campaigns'))
        .send({ name, subject: 'Hello', contentHtml: '<p>Hi</p>', listIds: [list.body.id] })
        .expect(201);
      return { id: res.body.id as number, etag: res.headers.etag };
    }
    const later = () => new Date(Date.now() + 24 * 3600_000).toISOString();

    it('60 parallel moves (scheduled or canceled) from draft: it ends canceled, the refused are 409, version counts the moves', async () => {
      const c = await draftCampaign('Race');
      const after = await lastEventId(t);
      const scheduledAt = later();
      const results = await burst(60, (i) =>
        x.api
          .patch(nl(`/campaigns/${c.id}`))
          .send(i % 2 === 0 ? { status: 'scheduled', scheduledAt } : { status: 'canceled' }),
      );
      expect(statusesOf(results).every((s) => s === 200 || s === 409)).toBe(true);
      // Canceled is final: a schedule asked for after it is refused, a cancel asked again changes nothing.
      for (const [i, r] of results.entries()) {
        if (r.status === 409) {
          expectProblem(r, 409, 'transition_forbidden');
          expect(i % 2).toBe(0);
        }
      }
      const row = await t.db.getRepository(CampaignEntity).findOneByOrFail({ id: c.id });
      expect(row.status).toBe('canceled');
      const names = (await eventsOf(t, x, after)).filter((e) => e.payload.id === c.id).map((e) => e.name);
      // Scheduled (again, for a scheduled campaign: a reschedule) zero or more times, then canceled once, last.
      expect(names[names.length - 1]).toBe('newsletter.campaign.canceled');
      expect(names.slice(0, -1).every((n) => n === 'newsletter.campaign.scheduled')).toBe(true);
      // One version per change, each with its event; the refused changed nothing.
      expect(row.version).toBe(1 + names.length);
      expect(countOf(results, 200)).toBeGreaterThanOrEqual(names.length);
    }, 60000);

    it('50 parallel edits with one If-Match: one 200, 49 × 412, one version more', async () => {
      const c = await draftCampaign('Etag race');
      const results = await burst(50, (i) =>
        x.api
          .patch(nl(`/campaigns/${c.id}`))
          .set('If-Match', c.etag)
          .send({ name: `Edit ${i}` }),
      );
      expect(statusesOf(results)).toEqual([200, 412]);
      expect(countOf(results, 200)).toBe(1);
      for (const r of results.filter((res) => res.status === 412)) expectProblem(r, 412, 'precondition_failed');
      const winner = results.find((r) => r.status === 200)!;
      const row = await t.db.getRepository(CampaignEntity).findOneByOrFail({ id: c.id });
      expect(row.name).toBe(winner.body.name);
      expect(row.version).toBe(2);
    }, 60000);
  });

  describe('deadlocks and serialization failures', () => {
    it('a transaction chosen as a deadlock victim answers 409 concurrent_update, never 500, and changes nothing', async () => {
      const a = await makeProduct(x, { name: 'Vase A', quantityAvailable: 5 });
      const b = await makeProduct(x, { name: 'Vase B', quantityAvailable: 5 });
      const before = await t.db.getRepository(OrderEntity).countBy({ siteId: x.siteId });
      // Another transaction holds B, then waits for A while the order holds A and waits for B.
      const other = t.db.createQueryRunner();
      await other.connect();
      await other.startTransaction();
      try {
        await other.query('UPDATE products SET quantity_available = quantity_available WHERE id = $1', [b.id]);
        const order = x.api.post(ordersUrl(x)).send(
          orderBody([
            [a.id, 1],
            [b.id, 1],
          ]),
        );
        const answered = order.then((r) => r);
        await waitForLockWait(t);
        // The order waited first, so its deadlock check (after deadlock_timeout) finds the cycle first.
        const blocked = other.query('UPDATE products SET quantity_available = quantity_available WHERE id = $1', [
          a.id,
        ]);
        const res = await answered;
        await blocked;
        expectProblem(res, 409, 'concurrent_update');
      } finally {
        await other.rollbackTransaction();
        await other.release();
      }
      expect(await t.db.getRepository(OrderEntity).countBy({ siteId: x.siteId })).toBe(before);
      expect((await t.db.getRepository(ProductEntity).findOneByOrFail({ id: a.id })).quantityAvailable).toBe(5);
    }, 30000);
  });
});

/** Waits until some backend of the app's database waits on a lock. */
async function waitForLockWait(t: TestApp): Promise<void> {
  const deadline = Date.now() + 10000;
  for (;;) {
    const rows = await t.db.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    if (Date.now() > deadline) throw new Error('No backend waited on a lock');
    await new Promise((r) => setTimeout(r, 20));
  }
}
