import request from 'supertest';
import { EmailMessageEntity } from '../../src/email/entities/email-message.entity';
import { MembershipEntity } from '../../src/newsletter/entities/membership.entity';
import { SigningKeyEntity } from '../../src/newsletter/entities/signing-key.entity';
import { SubscriptionEntity } from '../../src/newsletter/entities/subscription.entity';
import { encodeLinkToken } from '../../src/newsletter/links/link-tokens';
import { startApp, TestApp } from '../support/app';
import { snapshotDatabase } from '../support/db-snapshot';
import { eventsOf, lastEventId } from '../support/events';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant, withTenants } from '../support/tenant';
import { linksMailedTo, makeList, nl, subscribe } from './newsletter-fixtures';
import { altered } from '../support/altered';

const LOCALHOST = expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/);

describe('newsletter: subscribe, confirm, unsubscribe (public, JSON)', () => {
  const ctx = withTenants(2);
  let a: Tenant;
  let b: Tenant;
  const subs = () => ctx.t.db.getRepository(SubscriptionEntity);
  const memberships = async (email: string, x = a) => {
    const sub = await subs().findOneByOrFail({ siteId: x.siteId, email });
    const rows = await ctx.t.db
      .getRepository(MembershipEntity)
      .find({ where: { subscriptionId: sub.id }, order: { listId: 'ASC' } });
    return rows.map((m) => [m.listId, m.status]);
  };
  const mailsTo = (email: string) =>
    ctx.t.db
      .getRepository(EmailMessageEntity)
      .find({ where: { recipient: email, siteId: a.siteId }, order: { id: 'ASC' } });

  beforeAll(() => {
    [a, b] = ctx.tenants;
  });

  it('double opt-in: 202, the subscription pending with consent evidence, a confirmation mail; the link activates it once', async () => {
    const list = await makeList(a, { name: 'Weekly digest' });
    const after = await lastEventId(ctx.t);
    const res = await subscribe(ctx.t, a, {
      email: ' Ada@Example.com ',
      name: 'Ada',
      lists: [list.id],
      attributes: { plan: 'free' },
      consentText: 'Send me the digest',
    }).set('user-agent', 'Signup test');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: true, confirmationRequired: true });
    const sub = await subs().findOneByOrFail({ siteId: a.siteId, email: 'ada@example.com' });
    expect(sub).toEqual(
      expect.objectContaining({
        name: 'Ada',
        attributes: { plan: 'free' },
        deliverability: 'deliverable',
        source: 'form',
        consentIp: LOCALHOST,
        consentUserAgent: 'Signup test',
        consentListIds: [list.id],
        consentWording: 'Send me the digest',
        confirmNonce: expect.any(String),
      }),
    );
    expect(await memberships('ada@example.com')).toEqual([[list.id, 'pending']]);
    const [mail] = await mailsTo('ada@example.com');
    expect(mail).toEqual(
      expect.objectContaining({
        templateType: 'newsletter.confirmation',
        subject: 'Confirm your subscription to Weekly digest',
      }),
    );
    const { confirm } = await linksMailedTo(ctx.t, a, 'ada@example.com');
    expect(confirm).toMatch(/^c\./);

    const ok = await request(ctx.t.server)
      .get(nl(a, `/confirm/${confirm}`))
      .set('accept', 'application/json');
    expect(ok.status).toBe(200);
    // A link with an effect: never kept by a browser or a CDN, unlike public reads.
    expect(ok.headers['cache-control']).toBe('private, no-store');
    expect(ok.headers.etag).toBeUndefined();
    expect(ok.body).toEqual({
      result: 'confirmed',
      lists: [{ listId: list.id, name: 'Weekly digest', status: 'active' }],
    });
    expect(await memberships('ada@example.com')).toEqual([[list.id, 'active']]);
    expect((await subs().findOneByOrFail({ id: sub.id })).confirmNonce).toBeNull();
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      { name: 'newsletter.subscription.created', payload: { id: sub.id, source: 'form', listIds: [list.id] } },
      { name: 'newsletter.subscription.confirmed', payload: { id: sub.id, listIds: [list.id] } },
    ]);
    expect((await mailsTo('ada@example.com')).map((m) => m.templateType)).toEqual([
      'newsletter.confirmation',
      'newsletter.welcome',
    ]);
    // Single use.
    const again = await request(ctx.t.server).get(nl(a, `/confirm/${confirm}`));
    expectProblem(again, 410, 'token_used');
  });

  it('single opt-in: active at once, with a welcome mail and no confirmation', async () => {
    const list = await makeList(a, { name: 'News', doubleOptIn: false });
    const res = await subscribe(ctx.t, a, { email: 'bo@example.com', lists: [list.id] }).expect(202);
    expect(res.body).toEqual({ accepted: true, confirmationRequired: false });
    expect(await memberships('bo@example.com')).toEqual([[list.id, 'active']]);
    expect((await mailsTo('bo@example.com')).map((m) => m.templateType)).toEqual(['newsletter.welcome']);
  });

  it('no enumeration: a known address gets the same answer; it keeps its name; a honeypot hit does nothing', async () => {
    const list = await makeList(a, { name: 'Known' });
    const first = await subscribe(ctx.t, a, { email: 'cy@example.com', name: 'Cy', lists: [list.id] }).expect(202);
    const second = await subscribe(ctx.t, a, { email: 'cy@example.com', name: 'Mallory', lists: [list.id] }).expect(
      202,
    );
    expect(second.body).toEqual(first.body);
    expect((await subs().findOneByOrFail({ siteId: a.siteId, email: 'cy@example.com' })).name).toBe('Cy');
    const before = await snapshotDatabase(ctx.t.db);
    const bot = await subscribe(ctx.t, a, { email: 'bot@example.com', lists: [list.id], website: 'http://spam' });
    expect(bot.status).toBe(202);
    expect(bot.body).toEqual(first.body);
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  });

  it('refuses private and unknown lists alike (400 on lists), and bad bodies, changing nothing', async () => {
    const priv = await makeList(a, { name: 'Staff', visibility: 'private' });
    const other = await makeList(b, { name: 'Theirs' });
    const before = await snapshotDatabase(ctx.t.db);
    for (const lists of [[priv.id], [other.id], [999999999]]) {
      const res = await subscribe(ctx.t, a, { email: 'dee@example.com', lists });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: 'lists', message: 'must name public lists of this site' }]);
    }
    const bad = await subscribe(ctx.t, a, { email: 'not-an-address', lists: [] });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['email', 'lists']);
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  });

  it('a forged, altered, expired or other site’s confirm token is a clear 4xx and nothing changes', async () => {
    const list = await makeList(a, { name: 'Tokens' });
    await subscribe(ctx.t, a, { email: 'eve@example.com', lists: [list.id] }).expect(202);
    const { confirm } = await linksMailedTo(ctx.t, a, 'eve@example.com');
    const sub = await subs().findOneByOrFail({ siteId: a.siteId, email: 'eve@example.com' });
    const secret = (await ctx.t.db.getRepository(SigningKeyEntity).findOneByOrFail({ siteId: a.siteId })).secret;
    const expired = encodeLinkToken(secret, {
      kind: 'c',
      subscriptionId: sub.id,
      nonce: sub.confirmNonce!,
      expiresAt: 1,
    });
    const forged = encodeLinkToken(Buffer.alloc(32), {
      kind: 'c',
      subscriptionId: sub.id,
      nonce: sub.confirmNonce!,
      expiresAt: 4_000_000_000,
    });
    const before = await snapshotDatabase(ctx.t.db);
    expectProblem(await request(ctx.t.server).get(nl(a, `/confirm/${expired}`)), 410, 'token_expired');
    expectProblem(await request(ctx.t.server).get(nl(a, `/confirm/${forged}`)), 400, 'invalid_token');
    expectProblem(await request(ctx.t.server).get(nl(a, `/confirm/${altered(confirm!, 2)}`)), 400, 'invalid_token');
    expectProblem(await request(ctx.t.server).get(nl(b, `/confirm/${confirm}`)), 400, 'invalid_token');
    expectProblem(await request(ctx.t.server).get(nl(a, '/confirm/not-a-token')), 400, 'validation_failed');
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    expect(await memberships('eve@example.com')).toEqual([[list.id, 'pending']]);
    // A newer mail replaces the link: the old one is then used up.
    await subscribe(ctx.t, a, { email: 'eve@example.com', lists: [list.id] }).expect(202);
    expectProblem(await request(ctx.t.server).get(nl(a, `/confirm/${confirm}`)), 410, 'token_used');
  });

  it('unsubscribe: RFC 8058 one-click (form, token in the URL) leaves every list; again is a 200; JSON leaves one list', async () => {
    const one = await makeList(a, { name: 'One', doubleOptIn: false });
    const two = await makeList(a, { name: 'Two', doubleOptIn: false });
    await subscribe(ctx.t, a, { email: 'fay@example.com', lists: [one.id, two.id] }).expect(202);
    const { manage } = await linksMailedTo(ctx.t, a, 'fay@example.com');
    const sub = await subs().findOneByOrFail({ siteId: a.siteId, email: 'fay@example.com' });

    const json = await request(ctx.t.server).post(nl(a, '/unsubscribe')).send({ token: manage, listId: one.id });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({
      result: 'unsubscribed',
      lists: [
        { listId: one.id, name: 'One', status: 'unsubscribed' },
        { listId: two.id, name: 'Two', status: 'active' },
      ],
    });
    const after = await lastEventId(ctx.t);
    const click = await request(ctx.t.server)
      .post(nl(a, `/unsubscribe?token=${encodeURIComponent(manage!)}`))
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(click.status).toBe(200);
    expect(await memberships('fay@example.com')).toEqual([
      [one.id, 'unsubscribed'],
      [two.id, 'unsubscribed'],
    ]);
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      {
        name: 'newsletter.subscription.unsubscribed',
        payload: { id: sub.id, listIds: [two.id], by: 'person', reason: 'one-click' },
      },
    ]);
    const again = await request(ctx.t.server)
      .post(nl(a, `/unsubscribe?token=${encodeURIComponent(manage!)}`))
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(again.status).toBe(200);
    expect(await eventsOf(ctx.t, a, after)).toHaveLength(1);
    // The person comes back by subscribing again (a single opt-in list: active at once).
    await subscribe(ctx.t, a, { email: 'fay@example.com', lists: [one.id] }).expect(202);
    expect(await memberships('fay@example.com')).toEqual([
      [one.id, 'active'],
      [two.id, 'unsubscribed'],
    ]);
  });

  it("unsubscribe with the site's key: `email` alone names the address (issue #30, row 15); anonymous callers still need the token", async () => {
    const one = await makeList(a, { name: 'Key one', doubleOptIn: false });
    const two = await makeList(a, { name: 'Key two', doubleOptIn: false });
    await subscribe(ctx.t, a, { email: 'hal@example.com', lists: [one.id, two.id] }).expect(202);
    const sub = await subs().findOneByOrFail({ siteId: a.siteId, email: 'hal@example.com' });
    const before = await snapshotDatabase(ctx.t.db);
    // Without a key, or with another account's (it reads as anonymous here): the token is required.
    for (const caller of [request(ctx.t.server), b.api]) {
      const refused = await caller.post(nl(a, '/unsubscribe')).send({ email: 'hal@example.com' });
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors).toEqual([{ path: 'token', message: 'is required' }]);
    }
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
    const after = await lastEventId(ctx.t);
    const res = await a.api
      .post(nl(a, '/unsubscribe'))
      .send({ email: 'HAL@example.com', listId: one.id, reason: 'Asked on the account page' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: 'unsubscribed',
      lists: [
        { listId: one.id, name: 'Key one', status: 'unsubscribed' },
        { listId: two.id, name: 'Key two', status: 'active' },
      ],
    });
    expect(await memberships('hal@example.com')).toEqual([
      [one.id, 'unsubscribed'],
      [two.id, 'active'],
    ]);
    expect(await eventsOf(ctx.t, a, after)).toEqual([
      {
        name: 'newsletter.subscription.unsubscribed',
        payload: { id: sub.id, listIds: [one.id], by: 'operator', reason: 'Asked on the account page' },
      },
    ]);
    // Every list, then an address the site does not have: 200, nothing to leave.
    await a.api.post(nl(a, '/unsubscribe')).send({ email: 'hal@example.com' }).expect(200);
    expect(await memberships('hal@example.com')).toEqual([
      [one.id, 'unsubscribed'],
      [two.id, 'unsubscribed'],
    ]);
    const unknown = await a.api.post(nl(a, '/unsubscribe')).send({ email: 'nobody@example.com' });
    expect([unknown.status, unknown.body]).toEqual([200, { result: 'unsubscribed', lists: [] }]);
    // Another site's address is not reached through this site.
    await subscribe(ctx.t, b, {
      email: 'hal@example.com',
      lists: [(await makeList(b, { name: 'B', doubleOptIn: false })).id],
    }).expect(202);
    const bSub = await subs().findOneByOrFail({ siteId: b.siteId, email: 'hal@example.com' });
    await a.api.post(nl(a, '/unsubscribe')).send({ email: 'hal@example.com' }).expect(200);
    expect(await memberships('hal@example.com', b)).toEqual([[expect.any(Number), 'active']]);
    expect(bSub.id).not.toBe(sub.id);
    // A key still needs a token or an address.
    const neither = await a.api.post(nl(a, '/unsubscribe')).send({ all: true });
    expectProblem(neither, 400, 'validation_failed');
    expect(neither.body.errors).toEqual([{ path: 'token', message: 'is required, or `email` with the site’s key' }]);
  });

  it('unsubscribe errors: no token 400, a forged one 400, another address 400; nothing changes', async () => {
    const list = await makeList(a, { name: 'Stay', doubleOptIn: false });
    await subscribe(ctx.t, a, { email: 'gus@example.com', lists: [list.id] }).expect(202);
    const { manage } = await linksMailedTo(ctx.t, a, 'gus@example.com');
    const before = await snapshotDatabase(ctx.t.db);
    const none = await request(ctx.t.server).post(nl(a, '/unsubscribe')).send({ all: true });
    expectProblem(none, 400, 'validation_failed');
    expect(none.body.errors).toEqual([{ path: 'token', message: 'is required' }]);
    const forged = altered(manage!, 3);
    expectProblem(
      await request(ctx.t.server).post(nl(a, '/unsubscribe')).send({ token: forged }),
      400,
      'invalid_token',
    );
    expectProblem(
      await request(ctx.t.server).post(nl(a, '/unsubscribe')).send({ token: manage, email: 'other@example.com' }),
      400,
      'invalid_token',
    );
    expectProblem(
      await request(ctx.t.server).post(nl(a, '/unsubscribe')).type('form').send(`token=${manage}&token=${manage}`),
      400,
      'validation_failed',
    );
    expect(await snapshotDatabase(ctx.t.db)).toEqual(before);
  });
});

describe('newsletter subscribe limits', () => {
  let t: TestApp;
  let a: Tenant;
  beforeAll(async () => {
    t = await startApp({
      env: { NEWSLETTER_SUBSCRIBE_IP_HOURLY_LIMIT: '4', NEWSLETTER_SUBSCRIBE_EMAIL_HOURLY_LIMIT: '2' },
    });
    a = await createTenant(t);
  });
  afterAll(() => t.close());

  it('per address: past its share nothing more is mailed, and the answer is the same', async () => {
    const list = await makeList(a, { name: 'Limited' });
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push((await subscribe(t, a, { email: 'lim@example.com', lists: [list.id] })).body);
    expect(answers).toEqual(Array(3).fill({ accepted: true, confirmationRequired: true }));
    expect(
      await t.db.getRepository(EmailMessageEntity).countBy({ siteId: a.siteId, recipient: 'lim@example.com' }),
    ).toBe(2);
  });

  it('per client IP: 429 with Retry-After past the hourly limit', async () => {
    const list = await makeList(a, { name: 'Flood' });
    // Three came from the test above: the fourth passes, the fifth is refused.
    await subscribe(t, a, { email: 'n4@example.com', lists: [list.id] }).expect(202);
    const res = await subscribe(t, a, { email: 'n5@example.com', lists: [list.id] });
    expectProblem(res, 429, 'rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await t.db.getRepository(SubscriptionEntity).countBy({ siteId: a.siteId, email: 'n5@example.com' })).toBe(0);
  });
});
