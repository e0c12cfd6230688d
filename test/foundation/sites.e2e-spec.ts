import request from 'supertest';
import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import { OutboxEventEntity } from '../../src/common/outbox/outbox-event.entity';
import { startApp, TestApp } from '../support/app';
import { createTenant, Tenant, uniqueName } from '../support/tenant';
import { ISO } from '../support/matchers';
import { expectExactProblem, expectProblem } from '../support/problem';

/** The orders' hold settings a site has not set: their defaults (docs/orders.md). */
const HOLDS = {
  sessionHoldMinutes: 30,
  keyHoldMinutes: 1440,
  maxPendingPerUser: 5,
  maxHeldPerProduct: 10,
  maxHeldPerUser: 50,
  holdCooldownMinutes: 10,
};
/** The subscriptions' settings a site has not set: the dunning window's default (docs/users.md). */
const SUBSCRIPTIONS = { dunningDays: 14 };

describe('/api/v2/sites (admin)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startApp();
    [a, b] = await Promise.all([createTenant(t), createTenant(t)]);
  });
  afterAll(() => t.close());

  const sites = () => t.db.getRepository(SiteEntity);
  const siteBody = (s: { id: number; name: string; accountId: number }, title = '') => ({
    id: s.id,
    name: s.name,
    title,
    accountId: s.accountId,
    settings: {
      publicBaseUrl: null,
      email: { fromName: null, fromAddress: null, replyTo: null, softBounceLimit: null, softBounceWindowDays: null },
      contacts: { notifyEmails: [] },
      orders: { taxRates: {}, defaultTaxRate: null, ...HOLDS },
      newsletter: { confirmRedirectUrl: null, suppressOnDelete: false, sendRatePerMinute: null },
      subscriptions: SUBSCRIPTIONS,
    },
    createdAt: ISO,
    updatedAt: ISO,
  });

  describe('POST /api/v2/sites', () => {
    it('creates a site: 201, Location, the row and a site.created event', async () => {
      const name = uniqueName('blog');
      const res = await a.api.post('/api/v2/sites').send({ name, title: 'My blog' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name,
        title: 'My blog',
        accountId: a.accountId,
        settings: {
          publicBaseUrl: null,
          email: {
            fromName: null,
            fromAddress: null,
            replyTo: null,
            softBounceLimit: null,
            softBounceWindowDays: null,
          },
          contacts: { notifyEmails: [] },
          orders: { taxRates: {}, defaultTaxRate: null, ...HOLDS },
          newsletter: { confirmRedirectUrl: null, suppressOnDelete: false, sendRatePerMinute: null },
          subscriptions: SUBSCRIPTIONS,
        },
        createdAt: ISO,
        updatedAt: ISO,
      });
      expect(res.headers.location).toBe(`${t.configs.server.PUBLIC_BASE_URL}/api/v2/sites/${name}`);

      const row = await sites().findOneByOrFail({ name });
      expect(row).toEqual({
        id: res.body.id,
        accountId: a.accountId,
        name,
        title: 'My blog',
        settings: {},
        createdAt: new Date(res.body.createdAt),
        updatedAt: new Date(res.body.updatedAt),
      });
      const events = await t.db.getRepository(OutboxEventEntity).findBy({ siteId: res.body.id });
      // id, createdAt and dispatchedAt (the relay may have published it already) are left open.
      expect(events).toEqual([
        expect.objectContaining({
          accountId: a.accountId,
          siteId: res.body.id,
          name: 'site.created',
          payload: { id: res.body.id, name },
        }),
      ]);

      // The new site is reachable at its Location.
      const get = await a.api.get(new URL(res.headers.location).pathname);
      expect(get.status).toBe(200);
      expect(get.body).toEqual(res.body);
    });

    it('the title defaults to empty; a 63-character name is valid', async () => {
      const name = `${uniqueName('x')}-${'a'.repeat(63)}`.slice(0, 63);
      const res = await a.api.post('/api/v2/sites').send({ name });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(siteBody({ id: res.body.id, name, accountId: a.accountId }));
      expect((await sites().findOneByOrFail({ name })).title).toBe('');
    });

    it('a duplicate name is a 409 duplicate_site_name, in the same account or another', async () => {
      const detail = `A site named "${a.siteName}" already exists`;
      const same = await a.api.post('/api/v2/sites').send({ name: a.siteName });
      expectExactProblem(same, 409, 'duplicate_site_name', 'Conflict', detail);
      const other = await b.api.post('/api/v2/sites').send({ name: a.siteName, title: 'squat' });
      expectExactProblem(other, 409, 'duplicate_site_name', 'Conflict', detail);
      expect(await sites().findBy({ name: a.siteName })).toEqual([
        expect.objectContaining({ accountId: a.accountId, title: '' }),
      ]);
      expect(await sites().countBy({ accountId: b.accountId })).toBe(1);
    });

    const NAME_RULE = 'must be lower-case letters, digits and dashes, starting with a letter or digit (at most 63)';
    it.each([
      ['upper case', 'MySite'],
      ['a leading dash', '-site'],
      ['an underscore', 'my_site'],
      ['a space', 'my site'],
      ['64 characters', 'a'.repeat(64)],
      ['an empty name', ''],
      ['a dot', 'my.site'],
    ])('an invalid name (%s) is a 400 and creates nothing', async (_label, name) => {
      const before = await sites().countBy({ accountId: a.accountId });
      const res = await a.api.post('/api/v2/sites').send({ name });
      expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', [
        { path: 'name', message: NAME_RULE },
      ]);
      expect(await sites().countBy({ accountId: a.accountId })).toBe(before);
    });

    it.each([
      ['no name', {}, [{ path: 'name', message: 'is required' }]],
      ['a name that is not a string', { name: 42 }, [{ path: 'name', message: 'must be a string' }]],
      [
        'a title over 200 characters',
        { name: 'okname', title: 't'.repeat(201) },
        [{ path: 'title', message: 'must be shorter than or equal to 200 characters' }],
      ],
      ['an unknown field', { name: 'okname', accountId: 1 }, [{ path: 'accountId', message: 'is not allowed' }]],
    ])('a bad body (%s) is a 400 naming the field', async (_label, body, errors) => {
      const before = await sites().countBy({ accountId: a.accountId });
      const res = await a.api.post('/api/v2/sites').send(body);
      expectExactProblem(res, 400, 'validation_failed', 'Validation failed', '1 field is invalid', errors);
      expect(await sites().countBy({ accountId: a.accountId })).toBe(before);
    });
  });

  describe('GET /api/v2/sites', () => {
    it("lists only the account's sites, oldest first, with keyset pagination", async () => {
      const x = await createTenant(t);
      const made: Array<{ id: number; name: string; accountId: number }> = [
        { id: x.siteId, name: x.siteName, accountId: x.accountId },
      ];
      for (let i = 0; i < 2; i++) {
        const res = await x.api.post('/api/v2/sites').send({ name: uniqueName('more') });
        expect(res.status).toBe(201);
        made.push(res.body);
      }
      const page1 = await x.api.get('/api/v2/sites?limit=2');
      expect(page1.status).toBe(200);
      expect(page1.body).toEqual({
        data: made.slice(0, 2).map((s) => siteBody(s)),
        pagination: { limit: 2, nextCursor: expect.any(String) },
      });
      const page2 = await x.api.get(`/api/v2/sites?limit=2&cursor=${page1.body.pagination.nextCursor}`);
      expect(page2.status).toBe(200);
      expect(page2.body).toEqual({ data: [siteBody(made[2])], pagination: { limit: 2, nextCursor: null } });

      const all = await x.api.get('/api/v2/sites');
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ data: made.map((s) => siteBody(s)), pagination: { limit: 20, nextCursor: null } });
      const rows = await sites().find({ where: { accountId: x.accountId }, order: { id: 'ASC' } });
      expect(rows.map((s) => s.id)).toEqual(made.map((s) => s.id));
    });

    it('a key restricted to some sites lists only those', async () => {
      const x = await createTenant(t);
      const second = await x.api.post('/api/v2/sites').send({ name: uniqueName('second') });
      const third = await x.api.post('/api/v2/sites').send({ name: uniqueName('third') });
      const key = await x.api.post('/api/v2/api-keys').send({ name: 'two sites', siteIds: [x.siteId, third.body.id] });
      expect([second.status, third.status, key.status]).toEqual([201, 201, 201]);
      const res = await request(t.server).get('/api/v2/sites').set('x-api-key', key.body.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [siteBody({ id: x.siteId, name: x.siteName, accountId: x.accountId }), siteBody(third.body)],
        pagination: { limit: 20, nextCursor: null },
      });
      const page = await request(t.server).get('/api/v2/sites?limit=1').set('x-api-key', key.body.key);
      expect(page.body.data.map((s: { id: number }) => s.id)).toEqual([x.siteId]);
      const next = await request(t.server)
        .get(`/api/v2/sites?limit=1&cursor=${page.body.pagination.nextCursor}`)
        .set('x-api-key', key.body.key);
      expect(next.body).toEqual({ data: [siteBody(third.body)], pagination: { limit: 1, nextCursor: null } });
    });

    it('a forged cursor is a 400 invalid_cursor', async () => {
      const res = await a.api.get(`/api/v2/sites?cursor=${Buffer.from('["x"]').toString('base64url')}`);
      expectExactProblem(
        res,
        400,
        'invalid_cursor',
        'Bad request',
        'The cursor is malformed or belongs to another list',
        [{ path: 'cursor', message: 'is not a valid cursor' }],
      );
    });
  });

  describe('GET /api/v2/sites/:siteName', () => {
    it('gets a site of the account', async () => {
      const res = await a.api.get(`/api/v2/sites/${a.siteName}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(siteBody({ id: a.siteId, name: a.siteName, accountId: a.accountId }));
    });

    it('a site of another account, or none, is a 404 site_not_found', async () => {
      for (const name of [b.siteName, uniqueName('nosuch')]) {
        const res = await a.api.get(`/api/v2/sites/${name}`);
        expectExactProblem(res, 404, 'site_not_found', 'Not found', 'Site not found');
      }
    });
  });

  describe('PATCH /api/v2/sites/:siteName (title and settings)', () => {
    it('sets the title and the sender; fields left out stay, null clears one; site.updated is recorded', async () => {
      const x = await createTenant(t);
      const url = `/api/v2/sites/${x.siteName}`;
      const first = await x.api.patch(url).send({
        title: 'Shop',
        settings: {
          publicBaseUrl: 'https://shop.example.com',
          email: { fromName: 'The Shop', fromAddress: 'hello@shop.example.com', replyTo: 'help@shop.example.com' },
        },
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual(
        expect.objectContaining({
          title: 'Shop',
          settings: {
            publicBaseUrl: 'https://shop.example.com',
            email: {
              fromName: 'The Shop',
              fromAddress: 'hello@shop.example.com',
              replyTo: 'help@shop.example.com',
              softBounceLimit: null,
              softBounceWindowDays: null,
            },
            contacts: { notifyEmails: [] },
            orders: { taxRates: {}, defaultTaxRate: null, ...HOLDS },
            newsletter: { confirmRedirectUrl: null, suppressOnDelete: false, sendRatePerMinute: null },
            subscriptions: SUBSCRIPTIONS,
          },
        }),
      );
      const second = await x.api.patch(url).send({ settings: { email: { replyTo: null, fromName: 'Shop Team' } } });
      expect(second.body.title).toBe('Shop');
      expect(second.body.settings).toEqual({
        publicBaseUrl: 'https://shop.example.com',
        email: {
          fromName: 'Shop Team',
          fromAddress: 'hello@shop.example.com',
          replyTo: null,
          softBounceLimit: null,
          softBounceWindowDays: null,
        },
        contacts: { notifyEmails: [] },
        orders: { taxRates: {}, defaultTaxRate: null, ...HOLDS },
        newsletter: { confirmRedirectUrl: null, suppressOnDelete: false, sendRatePerMinute: null },
        subscriptions: SUBSCRIPTIONS,
      });
      const row = await sites().findOneByOrFail({ id: x.siteId });
      expect(row.settings).toEqual({
        publicBaseUrl: 'https://shop.example.com',
        email: { fromName: 'Shop Team', fromAddress: 'hello@shop.example.com' },
      });
      const events = await t.db.getRepository(OutboxEventEntity).findBy({ siteId: x.siteId, name: 'site.updated' });
      expect(events).toHaveLength(2);
      expect((await x.api.get(url).expect(200)).body.settings).toEqual(second.body.settings);
    });

    it('sets who is told of contact messages: addresses lower-cased, the list replaced whole, null clears it', async () => {
      const x = await createTenant(t);
      const url = `/api/v2/sites/${x.siteName}`;
      const first = await x.api
        .patch(url)
        .send({ settings: { contacts: { notifyEmails: ['Team@Shop.example.com', 'sales@shop.example.com'] } } })
        .expect(200);
      expect(first.body.settings).toEqual({
        publicBaseUrl: null,
        email: { fromName: null, fromAddress: null, replyTo: null, softBounceLimit: null, softBounceWindowDays: null },
        contacts: { notifyEmails: ['team@shop.example.com', 'sales@shop.example.com'] },
        orders: { taxRates: {}, defaultTaxRate: null, ...HOLDS },
        newsletter: { confirmRedirectUrl: null, suppressOnDelete: false, sendRatePerMinute: null },
        subscriptions: SUBSCRIPTIONS,
      });
      // Another section's change leaves it alone; a new list replaces the old one.
      await x.api
        .patch(url)
        .send({ settings: { email: { fromName: 'Shop' } } })
        .expect(200);
      const second = await x.api
        .patch(url)
        .send({ settings: { contacts: { notifyEmails: ['owner@shop.example.com'] } } })
        .expect(200);
      expect(second.body.settings.contacts).toEqual({ notifyEmails: ['owner@shop.example.com'] });
      expect((await sites().findOneByOrFail({ id: x.siteId })).settings).toEqual({
        email: { fromName: 'Shop' },
        contacts: { notifyEmails: ['owner@shop.example.com'] },
      });
      const cleared = await x.api
        .patch(url)
        .send({ settings: { contacts: { notifyEmails: null } } })
        .expect(200);
      expect(cleared.body.settings.contacts).toEqual({ notifyEmails: [] });
      expect((await sites().findOneByOrFail({ id: x.siteId })).settings).toEqual({
        email: { fromName: 'Shop' },
        contacts: {},
      });
    });

    it('sets the tax of orders: rates by tax code replace the map, null clears a field', async () => {
      const x = await createTenant(t);
      const url = `/api/v2/sites/${x.siteName}`;
      const first = await x.api
        .patch(url)
        .send({ settings: { orders: { taxRates: { standard: 2000, reduced: 550 }, defaultTaxRate: 1000 } } })
        .expect(200);
      expect(first.body.settings.orders).toEqual({
        taxRates: { standard: 2000, reduced: 550 },
        defaultTaxRate: 1000,
        ...HOLDS,
      });
      const second = await x.api
        .patch(url)
        .send({ settings: { orders: { taxRates: { zero: 0 }, defaultTaxRate: null } } })
        .expect(200);
      expect(second.body.settings.orders).toEqual({ taxRates: { zero: 0 }, defaultTaxRate: null, ...HOLDS });
      expect((await sites().findOneByOrFail({ id: x.siteId })).settings).toEqual({ orders: { taxRates: { zero: 0 } } });
      const cleared = await x.api
        .patch(url)
        .send({ settings: { orders: { taxRates: null } } })
        .expect(200);
      expect(cleared.body.settings.orders).toEqual({ taxRates: {}, defaultTaxRate: null, ...HOLDS });
    });

    it('refuses bad settings (400, nothing changes) and sites the key does not reach (404)', async () => {
      const x = await createTenant(t);
      const url = `/api/v2/sites/${x.siteName}`;
      const bad: Array<[unknown, string]> = [
        [{ settings: { email: { fromAddress: 'not an address' } } }, 'settings.email.fromAddress'],
        [{ settings: { email: { fromName: 'Evil\r\nBcc: x@example.com' } } }, 'settings.email.fromName'],
        [{ settings: { email: { replyTo: 'a@example.com\nBcc: b@example.com' } } }, 'settings.email.replyTo'],
        [{ settings: { publicBaseUrl: 'ftp://example.com' } }, 'settings.publicBaseUrl'],
        [{ settings: { campaigns: { anything: true } } }, 'settings.campaigns'],
        [{ settings: { newsletter: { suppressOnDelete: 'yes' } } }, 'settings.newsletter.suppressOnDelete'],
        [
          { settings: { newsletter: { confirmRedirectUrl: 'javascript:alert(1)' } } },
          'settings.newsletter.confirmRedirectUrl',
        ],
        [{ settings: { email: 'x' } }, 'settings.email'],
        [{ settings: { contacts: null } }, 'settings.contacts'],
        [{ settings: { contacts: { notifyEmails: 'team@example.com' } } }, 'settings.contacts.notifyEmails'],
        [{ settings: { contacts: { notifyEmails: ['not an address'] } } }, 'settings.contacts.notifyEmails'],
        [
          { settings: { contacts: { notifyEmails: ['a@example.com\nBcc: b@example.com'] } } },
          'settings.contacts.notifyEmails',
        ],
        [
          { settings: { contacts: { notifyEmails: ['a@example.com', 'A@example.com'] } } },
          'settings.contacts.notifyEmails',
        ],
        [
          { settings: { contacts: { notifyEmails: Array.from({ length: 11 }, (_, i) => `t${i}@example.com`) } } },
          'settings.contacts.notifyEmails',
        ],
        [{ settings: { contacts: { cc: [] } } }, 'settings.contacts.cc'],
        [{ settings: { orders: { taxRates: { standard: 10001 } } } }, 'settings.orders.taxRates'],
        [{ settings: { orders: { taxRates: { standard: 19.5 } } } }, 'settings.orders.taxRates'],
        [{ settings: { orders: { taxRates: { standard: '2000' } } } }, 'settings.orders.taxRates'],
        [{ settings: { orders: { taxRates: [2000] } } }, 'settings.orders.taxRates'],
        [{ settings: { orders: { taxRates: { ['x'.repeat(101)]: 5 } } } }, 'settings.orders.taxRates'],
        [{ settings: { orders: { defaultTaxRate: -1 } } }, 'settings.orders.defaultTaxRate'],
        [{ settings: { orders: { vat: 2000 } } }, 'settings.orders.vat'],
        [{ settings: { orders: null } }, 'settings.orders'],
        [{ title: null }, 'title'],
      ];
      for (const [body, path] of bad) {
        const res = await x.api.patch(url).send(body as object);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      }
      expect((await sites().findOneByOrFail({ id: x.siteId })).settings).toEqual({});
      expectProblem(await b.api.patch(url).send({ title: 'Mine' }), 404, 'site_not_found');
      expectProblem(await request(t.server).patch(url).send({ title: 'Mine' }), 401, 'missing_credential');
    });
  });
});
