import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { CatalogRepository } from '../../src/catalog/catalog.repository';
import { CursorQueryDto } from '../../src/common/pagination/page';
import { encodeCursor } from '../../src/common/pagination/cursor';
import { SiteContext } from '../../src/common/tenancy/site-context';
import { ContactsRepository } from '../../src/contacts/contacts.repository';
import { ContentRepository } from '../../src/content/content.repository';
import { EmailRepository } from '../../src/email/email.repository';
import { ListsService } from '../../src/newsletter/audience/lists.service';
import { SubscriptionsRepository } from '../../src/newsletter/audience/subscriptions.repository';
import { OrdersRepository } from '../../src/orders/orders.repository';
import { CreditsRepository } from '../../src/users/credits/credits.repository';
import { UserSubscriptionsService } from '../../src/users/subscriptions/user-subscriptions.service';
import { UsersRepository } from '../../src/users/users.repository';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { startApp, TestApp } from '../support/app';
import { expectOrFix } from '../support/matchers';
import { createTenant } from '../support/tenant';

/** The SQL of every shaped read, checked in: what a review reads as a diff. */
const FILE = join(__dirname, '..', 'fixtures', 'shaped-reads.sql');

/**
 * The SQL every shaped read sends (docs/performance.md), for representative shapes of each call
 * site, held in test/fixtures/shaped-reads.sql (Immich's @GenerateSql): a change to what a read
 * asks PostgreSQL for, a filter dropped from a shape included, shows in review as a diff of SQL.
 * After a deliberate change: `UPDATE_SQL_SNAPSHOT=1 npx jest test/foundation/shaped-reads-sql`.
 */
describe('the SQL of the shaped reads', () => {
  let t: TestApp;
  let site: SiteContext;

  beforeAll(async () => {
    // The statements are the fast path's (named `sb_read_…`), even in a run with the fast paths off.
    t = await startApp({ env: { FAST_PATHS: 'true' } });
    const tenant = await createTenant(t);
    site = { id: tenant.siteId, name: tenant.siteName, accountId: tenant.accountId };
  });
  afterAll(() => t.close());

  const at = new Date('2026-01-01T00:00:00.000Z');
  const byDate = encodeCursor([at.toISOString(), 1]);
  const byNumber = encodeCursor([1]);
  const byPosition = encodeCursor([1, 1]);
  const page = <Q>(filters: Q, cursor?: string): Q & CursorQueryDto => ({ limit: 20, cursor, ...filters });
  const get = <T>(type: abstract new (...args: never[]) => T): T => t.app.get(type, { strict: false });

  const CASES: Array<[string, () => Promise<unknown>]> = [
    [
      'catalog categories, a page after a cursor',
      () => get(CatalogRepository).listCategories(site, page({}, byPosition)),
    ],
    ['catalog category', () => get(CatalogRepository).findCategory(site, 1)],
    ['catalog products, anonymous', () => get(CatalogRepository).listProducts(site, page({}), false)],
    [
      'catalog products, with a key and every filter',
      () =>
        get(CatalogRepository).listProducts(
          site,
          page(
            {
              status: 'draft' as const,
              categoryId: 1,
              minAmount: 1,
              maxAmount: 2,
              currency: 'EUR',
              inStock: false,
              recurring: true,
              q: 'x',
            },
            byPosition,
          ),
          true,
        ),
    ],
    ['catalog product by id, anonymous', () => get(CatalogRepository).findProduct(site, 1, false)],
    ['catalog product by slug, with a key', () => get(CatalogRepository).findProduct(site, 'a-slug', true)],
    ['catalog variants of a product', () => get(CatalogRepository).variantsOf(1)],
    ['catalog variants of products', () => get(CatalogRepository).variantsOfMany([1, 2])],
    ['catalog products of a category', () => get(CatalogRepository).productsOfCategory(site, 1)],
    ['content list, anonymous', () => get(ContentRepository).list(site, page({}), false)],
    [
      'content list, with a key and every filter',
      () =>
        get(ContentRepository).list(
          site,
          page(
            { status: 'draft' as const, type: 'post', tag: 'a', category: 'b', author: 1, q: 'x', from: at, to: at },
            byDate,
          ),
          true,
        ),
    ],
    ['content by slug, anonymous', () => get(ContentRepository).findByIdOrSlug(site, 'a-slug', false)],
    ['content by id, with a key', () => get(ContentRepository).findByIdOrSlug(site, '1', true)],
    ['content offset page (v1)', () => get(ContentRepository).offsetPage(site, 10, 0)],
    ['content, all of a site', () => get(ContentRepository).all(site)],
    [
      'contacts, every filter',
      () =>
        get(ContactsRepository).list(
          site,
          page({ status: 'new' as const, email: 'a@b.c', tag: 'a', q: 'x', from: at, to: at }, byDate),
        ),
    ],
    ['contact', () => get(ContactsRepository).find(site, 1)],
    ['users, first page', () => get(UsersRepository).list(site, page({}))],
    [
      'users, every filter',
      () => get(UsersRepository).list(site, page({ status: 'active' as const, email: 'a', from: at, to: at }, byDate)),
    ],
    ['user', () => get(UsersRepository).find(site, 1)],
    ['credit ledger', () => get(CreditsRepository).ledger(1, page({}, byNumber))],
    [
      "a user's subscriptions by status",
      () => get(UserSubscriptionsService).listOf(1, page({ status: 'active' as const }, byNumber)),
    ],
    ["orders, a site user's own", () => get(OrdersRepository).list(site, page({}), 1)],
    [
      'orders, every filter',
      () =>
        get(OrdersRepository).list(
          site,
          page(
            {
              paymentStatus: 'paid' as const,
              fulfillmentStatus: 'unfulfilled' as const,
              email: 'a@b.c',
              from: at,
              to: at,
            },
            byDate,
          ),
        ),
    ],
    ['order', () => get(OrdersRepository).find(site, 1)],
    ['order lines', () => get(OrdersRepository).linesOf(1)],
    ['order shipments', () => get(OrdersRepository).shipmentsOf(1)],
    [
      'email templates by type and status',
      () => get(EmailRepository).listTemplates(site, page({ type: 'custom', status: 'published' as const }, byNumber)),
    ],
    ['email template', () => get(EmailRepository).findTemplate(site, 1)],
    ['published email template of a type', () => get(EmailRepository).findPublished(site, 'custom')],
    ['email messages by status', () => get(EmailRepository).listMessages(site, page({ status: 'sent' as const }))],
    ['email message', () => get(EmailRepository).findMessage(site, 1)],
    ['webhook endpoints', () => get(WebhooksRepository).listEndpoints(site, page({}, byNumber))],
    ['webhook endpoint', () => get(WebhooksRepository).findEndpoint(site, 1)],
    [
      'webhook deliveries by status',
      () => get(WebhooksRepository).listDeliveries(site, 1, page({ status: 'failed' as const })),
    ],
    ['webhook delivery', () => get(WebhooksRepository).findDelivery(site, 1, 1)],
    [
      'newsletter lists by visibility',
      () => get(ListsService).list(site, page({ visibility: 'public' as const }, byNumber)),
    ],
    [
      'newsletter list',
      () =>
        get(ListsService)
          .get(site, 1)
          .catch(() => null),
    ],
    ['subscriptions, first page', () => get(SubscriptionsRepository).list(site, page({}))],
    [
      "subscriptions of a list by status, after a cursor (the membership's keyset)",
      () => get(SubscriptionsRepository).list(site, page({ listId: 1, status: 'active' as const }, byNumber)),
    ],
    [
      'subscriptions, every filter but a list',
      () =>
        get(SubscriptionsRepository).list(
          site,
          page({
            status: 'active' as const,
            deliverability: 'bounced' as const,
            emailContains: 'a',
            attributeName: 'plan',
            attributeValue: 'pro',
            createdFrom: at,
            createdTo: at,
          }),
        ),
    ],
    ['subscription by id', () => get(SubscriptionsRepository).find(site, { id: 1 })],
    ['subscription by email', () => get(SubscriptionsRepository).find(site, { email: 'a@b.c' })],
    // new:module: cases above (each shape of a module's reads: first page, every filter, a cursor, one)
  ];

  it('is the SQL in test/fixtures/shaped-reads.sql', async () => {
    let document = '-- Written by test/foundation/shaped-reads-sql.e2e-spec.ts (UPDATE_SQL_SNAPSHOT=1)\n';
    for (const [name, read] of CASES) {
      const statements = await shapedStatements(read);
      expect(statements.length).toBeGreaterThan(0);
      document += `\n-- ${name}\n${statements.map((text) => `${text};\n`).join('')}`;
    }
    if (process.env.UPDATE_SQL_SNAPSHOT === '1') writeFileSync(FILE, document);
    expectOrFix(
      'The SQL of the shaped reads differs from test/fixtures/shaped-reads.sql. Review the diff (it is what ' +
        'each read now sends: a lost index, a new join, a changed order), then accept it with ' +
        '`UPDATE_SQL_SNAPSHOT=1 npx jest test/foundation/shaped-reads-sql` and commit the file. A new read ' +
        'joins CASES above.',
      () => expect(document).toBe(readFileSync(FILE, 'utf8')),
    );
  });
});

/** The text of each shaped read (a statement named `sb_read_…`) sent while `action` runs, a clause a line. */
async function shapedStatements(action: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const original = Client.prototype.query;
  const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    const config = args[0] as { name?: string; text?: string };
    if (config?.name?.startsWith('sb_read_') && config.text) seen.push(config.text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return seen.map((text) => text.replace(/ (FROM|INNER JOIN|WHERE|AND|ORDER BY|LIMIT) /g, '\n$1 '));
}
