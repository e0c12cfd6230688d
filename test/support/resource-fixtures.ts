import request from 'supertest';
import { SiteUserEntity } from '../../src/users/entities/site-user.entity';
import { UserSubscriptionEntity } from '../../src/users/entities/user-subscription.entity';
import { SessionsService } from '../../src/users/auth/sessions.service';
import { TestApp } from './app';
import { makePdf } from './files';
import type { Operation } from './openapi-operations';
import { Tenant } from './tenant';

/**
 * One of every resource of a site, made through the API (or, where no route makes it, the way
 * the service would): what the tests that walk every operation of the OpenAPI document
 * (input hardening, query plans) put in each path parameter. `copy` > 0 makes another set
 * beside the first, with names of its own, so lists hold several rows.
 */
export interface ResourceFixtures {
  tenant: Tenant;
  ids: Record<string, number>;
  /** A site user's session, for the `/users/me/**` operations. */
  sessionToken: string;
}

export async function seedResources(t: TestApp, tenant: Tenant, copy = 0): Promise<ResourceFixtures> {
  const ids: Record<string, number> = {};
  const n = copy === 0 ? '' : ` ${copy}`;
  const mail = (local: string) => `${local}${copy === 0 ? '' : copy}@example.com`;
  const site = `/api/v2/sites/${tenant.siteName}`;
  const made = async (res: request.Response) => {
    if (res.status !== 201) throw new Error(`fixture: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as number;
  };
  ids.key = await made(await tenant.api.post('/api/v2/api-keys').send({ name: `spare${n}` }));
  ids.senderDomain = await made(
    await tenant.api.post('/api/v2/sender-domains').send({ domain: `fixture${copy || ''}.${tenant.siteName}.example` }),
  );
  ids.content = await made(await tenant.api.post(`${site}/content`).send({ title: `Fixture${n}`, tags: ['a'] }));
  ids.collection = await made(await tenant.api.post(`${site}/collections`).send({ name: `Fixture${n}` }));
  await tenant.api.post(`${site}/collections/${ids.collection}/items`).send({ contentId: ids.content }).expect(201);
  ids.category = await made(await tenant.api.post(`${site}/media/categories`).send({ name: `Fixture${n}` }));
  ids.tag = await made(await tenant.api.post(`${site}/media/tags`).send({ name: `Fixture${n}` }));
  ids.media = await made(await tenant.api.post(`${site}/media`).attach('file', makePdf(), 'fixture.pdf'));
  ids.revision = (await tenant.api.get(`${site}/content/${ids.content}/revisions`).expect(200)).body.data[0].id;
  ids.template = await made(
    await tenant.api
      .post(`${site}/email/templates`)
      .send({ type: 'custom', name: `Fixture${n}`, subject: '{{ subject }}', html: '{{ body }}' }),
  );
  const sent = await tenant.api
    .post(`${site}/email/send`)
    .send({ to: [{ email: mail('f') }], subject: 'F', text: 'F' });
  if (sent.status !== 202) throw new Error(`fixture: ${sent.status} ${JSON.stringify(sent.body)}`);
  ids.message = sent.body.messages[0].id;
  ids.suppression = await made(await tenant.api.post(`${site}/email/suppressions`).send({ email: mail('suppressed') }));
  // Disabled, so the events of the fixtures above are not fanned out to it mid-snapshot; a
  // public IP literal, so no DNS is needed to create it.
  ids.webhook = await made(
    await tenant.api
      .post(`${site}/webhooks`)
      .send({ url: `https://93.184.215.14/hooks${copy || ''}`, status: 'disabled', eventTypes: ['content.*'] }),
  );
  ids.productCategory = await made(await tenant.api.post(`${site}/categories`).send({ name: `Fixture${n}` }));
  const product = await tenant.api.post(`${site}/products`).send({
    name: `Fixture${n}`,
    unitAmount: 100,
    currency: 'EUR',
    option1: 'Size',
    categoryId: ids.productCategory,
  });
  ids.product = await made(product);
  const withVariant = await tenant.api.post(`${site}/products/${ids.product}/variants`).send({ option1Value: 'M' });
  if (withVariant.status !== 201) throw new Error(`fixture: ${withVariant.status} ${JSON.stringify(withVariant.body)}`);
  ids.variant = withVariant.body.variants[0].id as number;
  const user = await t.db
    .getRepository(SiteUserEntity)
    .save({ siteId: tenant.siteId, email: mail('fixture'), name: `Fixture${n}`, status: 'active', metadata: {} });
  ids.user = user.id;
  const sessionToken = (await t.db.transaction((em) => t.app.get(SessionsService).create(em, user, {}))).token;
  // The user's subscription, as a paid order's recurring line would start it.
  const now = new Date();
  ids.userSubscription = (
    await t.db.getRepository(UserSubscriptionEntity).save({
      siteId: tenant.siteId,
      userId: user.id,
      productId: ids.product,
      status: 'active',
      unitAmount: 100,
      currency: 'EUR',
      interval: 'month',
      intervalCount: 1,
      currentPeriodStart: now,
      currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
    })
  ).id;
  // A pending charge of it, for the routes that pay one.
  const charged = await tenant.api
    .post(`${site}/users/${user.id}/subscriptions/${ids.userSubscription}/charges`)
    .send({ amount: 100, description: `Fixture${n}` });
  if (charged.status !== 201) throw new Error(`fixture: ${charged.status} ${JSON.stringify(charged.body)}`);
  ids.subscriptionCharge = charged.body.charge.id as number;
  ids.order = await made(
    await tenant.api
      .post(`${site}/orders`)
      .send({ lines: [{ productId: ids.product, quantity: 1 }], customer: { email: mail('f') } }),
  );
  const [delivery] = await t.db.query<Array<{ id: string }>>(
    `INSERT INTO webhook_deliveries (site_id, endpoint_id, event_type, payload, status)
     VALUES ($1, $2, 'webhook.test', '{}', 'failed') RETURNING id`,
    [tenant.siteId, ids.webhook],
  );
  ids.delivery = Number(delivery.id);
  // Sent with the key (the receipt names no id), then found in the inbox.
  await tenant.api
    .post(`${site}/contacts`)
    .send({ name: `Fixture${n}`, email: mail('fixture'), message: 'Fixture' })
    .expect(201);
  ids.contact = (await tenant.api.get(`${site}/contacts?limit=1`).expect(200)).body.data[0].id as number;
  ids.newsletterList = await made(await tenant.api.post(`${site}/newsletter/lists`).send({ name: `Fixture${n}` }));
  await tenant.api
    .post(`${site}/newsletter/subscriptions/sync`)
    .send({ listId: ids.newsletterList, emails: [mail('fixture')] })
    .expect(200);
  ids.subscription = (await tenant.api.get(`${site}/newsletter/subscriptions?limit=1`).expect(200)).body.data[0]
    .id as number;
  ids.newsletterImport = (
    await tenant.api
      .post(`${site}/newsletter/subscriptions/import`)
      .field('listIds', String(ids.newsletterList))
      .attach('file', Buffer.from(`email\n${mail('imported')}\n`), 'fixture.csv')
      .expect(200)
  ).body.id as number;
  ids.newsletterSeries = await made(
    await tenant.api.post(`${site}/newsletter/series`).send({
      name: `Fixture${n}`,
      listIds: [ids.newsletterList],
      steps: [{ delaySeconds: 0, subject: 'Fixture', html: '<p>Fixture</p>' }],
    }),
  );
  ids.campaign = await made(
    await tenant.api.post(`${site}/newsletter/campaigns`).send({ name: `Fixture${n}`, listIds: [ids.newsletterList] }),
  );
  // new:module: fixtures above (one of each resource a module's paths take)
  return { tenant, ids, sessionToken };
}

/** The fixture id an `{id}` segment of this path takes. */
export function idFor(f: ResourceFixtures, path: string): number {
  const { ids } = f;
  // new:module: path ids below (a module's own path segment, whole)
  if (path.includes('/api-keys/')) return ids.key;
  if (path.includes('/sender-domains/')) return ids.senderDomain;
  if (path.includes('/collections/')) return ids.collection;
  if (path.includes('/content/')) return ids.content;
  if (path.includes('/media/categories/')) return ids.category;
  if (path.includes('/media/tags/')) return ids.tag;
  if (path.includes('/media/')) return ids.media;
  if (path.includes('/email/messages/')) return ids.message;
  if (path.includes('/email/suppressions/')) return ids.suppression;
  if (path.includes('/webhooks/')) return ids.webhook;
  if (path.includes('/categories/')) return ids.productCategory;
  if (path.includes('/products/')) return ids.product;
  if (path.includes('/users/me/subscriptions/')) return ids.userSubscription;
  if (path.includes('/users/')) return ids.user;
  if (path.includes('/contacts/')) return ids.contact;
  if (path.includes('/orders/')) return ids.order;
  if (path.includes('/newsletter/lists/')) return ids.newsletterList;
  if (path.includes('/newsletter/subscriptions/')) return ids.subscription;
  if (path.includes('/newsletter/imports/')) return ids.newsletterImport;
  if (path.includes('/newsletter/series/')) return ids.newsletterSeries;
  if (path.includes('/newsletter/campaigns/')) return ids.campaign;
  throw new Error(`no fixture id for ${path}: add one to test/support/resource-fixtures.ts`);
}

/**
 * The fixture a body property that must name stored data (`x-sitebase-checked: stored data`)
 * can take, by the property's name: what a generated valid body puts there most of the time.
 */
export function bodyIdFor(f: ResourceFixtures, property: string): number | undefined {
  const { ids } = f;
  const byName: Record<string, number> = {
    listIds: ids.newsletterList,
    lists: ids.newsletterList,
    add: ids.newsletterList,
    remove: ids.newsletterList,
    listId: ids.newsletterList,
    templateId: ids.template,
    categoryIds: ids.category,
    tagIds: ids.tag,
    attachmentIds: ids.media,
    attachment_ids: ids.media,
    productId: ids.product,
    variantId: ids.variant,
    categoryId: ids.productCategory,
    product_category_id: ids.productCategory,
  };
  return byName[property];
}

/** What a path parameter of this operation takes. */
export function paramValue(f: ResourceFixtures, op: Operation, name: string): string {
  const { ids, tenant } = f;
  switch (name) {
    case 'siteName':
    case 'site_name':
      return tenant.siteName;
    case 'id':
      return String(idFor(f, op.path));
    case 'itemId':
    case 'page_id':
      return String(ids.content);
    case 'revisionId':
      return String(ids.revision);
    case 'templateId':
      return String(ids.template);
    case 'templateType':
      return 'custom';
    case 'deliveryId':
      return String(ids.delivery);
    case 'key':
      return 'theme';
    case 'variantId':
      return String(ids.variant);
    case 'subId':
      return String(ids.userSubscription);
    case 'chargeId':
      return String(ids.subscriptionCharge);
    case 'product_id':
      return String(ids.product);
    case 'product_category_id':
      return String(ids.productCategory);
    case 'organization_id':
      return String(tenant.accountId);
    case 'project_id':
      return String(tenant.siteId);
    case 'token':
      // Well-formed, signed by no one: refused before any row is read.
      if (op.path.includes('/track/open/')) return 'o.1.1.AAAAAAAAAAAAAAAAAAAAAA';
      if (op.path.includes('/track/click/')) return 'k.1.1.0.AAAAAAAAAAAAAAAAAAAAAA';
      return op.path.includes('/confirm/')
        ? 'c.1.AAAAAAAAAAAAAAAAAAAAAA.1.AAAAAAAAAAAAAAAAAAAAAA'
        : 'm.1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA';
    case 'limit':
      return '20';
    case 'offset':
      return '0';
    default:
      throw new Error(`${op.label}: no value for path parameter ${name}: add it to test/support/resource-fixtures.ts`);
  }
}

/** The operation's URL; `raw` values are put in as they are (already encoded). */
/**
 * The operation's required query parameters with their documented examples (`?reason=…`), for the
 * sweeps that send each operation as it is meant to be called and judge the answer to its path.
 */
export function requiredQuery(op: Operation): string {
  const value = (example: unknown) =>
    typeof example === 'string' || typeof example === 'number' ? String(example) : 'x';
  const pairs = op.queryParams
    .filter((q) => q.required)
    .map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(value(q.schema.example))}`);
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

export function operationUrl(f: ResourceFixtures, op: Operation, raw: Record<string, string> = {}): string {
  return op.path.replace(
    /\{([^}]+)\}/g,
    (_m, name: string) => raw[name] ?? encodeURIComponent(paramValue(f, op, name)),
  );
}
