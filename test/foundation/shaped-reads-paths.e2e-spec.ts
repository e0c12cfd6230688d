import { ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import type { ObjectLiteral } from 'typeorm';
import { shapedReadsFast } from '../../src/common/internals/shaped-read';
import { FastRead, ShapedReads } from '../../src/database/fast-read';
import { EmailRepository } from '../../src/email/email.repository';
import { OrderShipmentEntity } from '../../src/orders/entities/order-shipment.entity';
import { startApp, TestApp } from '../support/app';
import { loadOperations, Operation } from '../support/openapi-operations';
import { operationUrl, requiredQuery, ResourceFixtures, seedResources } from '../support/resource-fixtures';
import { createTenant, Tenant } from '../support/tenant';

/*
 * The shaped reads' fast path (src/common/internals/shaped-read.ts: prepared statements on the
 * pg pool, rows mapped by hand) against the plain path (TypeORM's getRawAndEntities), over every
 * read the API makes: every GET operation of the document is called over fixtures of every
 * resource, anonymously and with a key (or a session), and each shaped read it makes is read
 * again the plain way; the entities (class, fields, values and their types) and the extra values
 * must be the same. Every reader of the app must have read rows here (docs/performance.md,
 * "Fenced fast paths").
 */

/** Reads that are not the API's data, or that a made-up token cannot reach. */
const NOT_DATA = [/^\/health/, /\/newsletter\/(confirm|preferences|track\/open|track\/click)\//];

interface Pair {
  reader: ShapedReads<ObjectLiteral>;
  shape: string;
  fast: FastRead<ObjectLiteral>;
  plain: FastRead<ObjectLiteral>;
}

/** Every ShapedReads the app's providers hold, by where it is held. */
function readersOf(t: TestApp): Map<ShapedReads<ObjectLiteral>, string> {
  const found = new Map<ShapedReads<ObjectLiteral>, string>();
  for (const module of t.app.get(ModulesContainer).values())
    for (const wrapper of module.providers.values()) {
      const instance = wrapper.instance as Record<string, unknown> | null | undefined;
      if (!instance || typeof instance !== 'object') continue;
      for (const [field, value] of Object.entries(instance))
        if (value instanceof ShapedReads) found.set(value, `${instance.constructor.name}.${field}`);
    }
  return found;
}

/**
 * An entity as its reader sees it: its class and the fields it has. TypeORM builds its entities
 * with `new`, which declares every field of the class (undefined when not selected); the fast
 * path sets only the selected ones.
 */
const seen = (entity: ObjectLiteral) => ({
  class: entity.constructor,
  fields: Object.fromEntries(Object.entries(entity).filter(([, value]) => value !== undefined)),
});

describe('shaped reads: the fast path answers what the plain path answers', () => {
  let t: TestApp;
  let a: Tenant;
  let fixtures: ResourceFixtures;
  let operations: Operation[];
  const pairs: Pair[] = [];
  let spy: jest.SpyInstance | undefined;

  beforeAll(async () => {
    // No background work: every read seen is a request's; the fast path on, whatever the run's setting.
    t = await startApp({ env: { JOBS_ENABLED: 'false', FAST_PATHS: 'true' } });
    a = await createTenant(t);
    fixtures = await seedResources(t, a);
    await seedResources(t, a, 1);
    const site = `/api/v2/sites/${a.siteName}`;
    // Published, with every kind of column filled: arrays, jsonb, dates.
    await a.api
      .post(`${site}/content`)
      .send({
        title: 'Published',
        status: 'published',
        tags: ['a', 'b'],
        categories: ['guides'],
        authors: [{ id: fixtures.ids.user, name: 'Ada' }],
        customFields: { n: 1, s: 'x', nested: { list: [1, null] } },
      })
      .expect(201);
    const { ids } = fixtures;
    await a.api.post(`${site}/users/${ids.user}/credits/grant`).send({ amount: 10, reason: 'grant' }).expect(201);
    await a.api.post(`${site}/email/templates/${ids.template}/publish`).expect(200);
    await t.db.getRepository(OrderShipmentEntity).save({
      orderId: ids.order,
      siteId: a.siteId,
      carrier: 'DHL',
      trackingNumber: 'JD77',
      trackingUrl: null,
      lines: [],
      notificationId: null,
    });
    ({ operations } = await loadOperations(t.server));
    const original = ShapedReads.prototype.read;
    spy = jest.spyOn(ShapedReads.prototype, 'read').mockImplementation(async function (
      this: ShapedReads<ObjectLiteral>,
      shape,
      params,
      build,
    ) {
      const fast = await original.call(this, shape, params, build);
      const plain = await original.call(new ShapedReads({ plain: true }), shape, params, build);
      pairs.push({ reader: this, shape: JSON.stringify(shape), fast, plain });
      return fast;
    });
  });
  afterAll(async () => {
    spy?.mockRestore();
    await t.close();
  });

  const reads = () => operations.filter((op) => op.method === 'get' && !NOT_DATA.some((re) => re.test(op.path)));

  it('reads every GET operation both ways, and every reader of the app reads rows', async () => {
    expect(shapedReadsFast(t.db)).toBe(true);
    for (const op of reads()) {
      const url = operationUrl(fixtures, op) + requiredQuery(op);
      if (op.isPublic) await request(t.server).get(url);
      await (op.sessionOnly
        ? request(t.server).get(url).set('authorization', `Bearer ${fixtures.sessionToken}`)
        : request(t.server).get(url).set('x-api-key', a.key));
    }
    // Reads no GET operation of the document makes: `all` as a v1 page id, a send's template.
    await request(t.server).get(`/v1/${a.siteName}/pages/all`).set('x-api-key', a.key).expect(200);
    const site = { id: a.siteId, name: a.siteName, accountId: a.accountId };
    expect(await t.app.get(EmailRepository).findPublished(site, 'custom')).toBeTruthy();
    const readers = readersOf(t);
    expect(readers.size).toBeGreaterThan(30);
    const withRows = new Set(pairs.filter((p) => p.fast.entities.length > 0).map((p) => p.reader));
    expect([...readers].filter(([reader]) => !withRows.has(reader)).map(([, where]) => where)).toEqual([]);
  });

  it('answers the same entities and extra values for each of those reads', () => {
    expect(pairs.length).toBeGreaterThan(40);
    for (const { reader, shape, fast, plain } of pairs) {
      const where = `${readersOf(t).get(reader) ?? 'a reader'} ${shape}`;
      expect({ where, entities: fast.entities.map(seen) }).toStrictEqual({ where, entities: plain.entities.map(seen) });
      // The one extra value a caller reads (the v1 pages' total).
      const totals = (read: FastRead<ObjectLiteral>) => read.entities.map((_e, row) => read.extra(row, 'total'));
      expect({ where, totals: totals(fast) }).toStrictEqual({ where, totals: totals(plain) });
    }
  });
});
