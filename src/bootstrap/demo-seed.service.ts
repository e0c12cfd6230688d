import { Injectable } from '@nestjs/common';
import { CategoriesService } from '../catalog/categories.service';
import { ProductsService } from '../catalog/products.service';
import { KeyPrincipal } from '../common/auth/principal';
import { OutboxRelay } from '../common/outbox/outbox-relay.service';
import { SiteContext } from '../common/tenancy/site-context';
import { ContentService } from '../content/content.service';
import { EmailTemplatesService } from '../email/email-templates.service';
import { BulkService } from '../newsletter/bulk-import/bulk.service';
import { ListsService } from '../newsletter/audience/lists.service';
import { OrdersService } from '../orders/orders.service';
import { UsersService } from '../users/users.service';
import { UserSubscriptionsService } from '../users/subscriptions/user-subscriptions.service';
import { WebhookEndpointsService } from '../webhooks/webhook-endpoints.service';
import sharp from 'sharp';
import { MediaUploadService } from '../media/media-upload.service';

/** The demo customer: the site user the paid order makes, who holds the subscription. */
export const DEMO_CUSTOMER = 'ada@example.com';

/** How long the seed waits for the outbox to start the paid order's subscription. */
const SUBSCRIPTION_WAIT_MS = 30_000;

/**
 * What a person trying the API on a fresh `npm start` finds in the site `demo` (docs/foundation.md,
 * "Bootstrap"), made through the services as the API would make it, in this order so that on a
 * fresh database each is the first of its kind (id 1): the ids the OpenAPI examples name. Run once,
 * right after the bootstrap made the site; never on a database that had data.
 */
@Injectable()
export class DemoSeedService {
  constructor(
    private readonly content: ContentService,
    private readonly categories: CategoriesService,
    private readonly products: ProductsService,
    private readonly lists: ListsService,
    private readonly bulk: BulkService,
    private readonly templates: EmailTemplatesService,
    private readonly orders: OrdersService,
    private readonly users: UsersService,
    private readonly subscriptions: UserSubscriptionsService,
    private readonly webhooks: WebhookEndpointsService,
    private readonly relay: OutboxRelay,
    private readonly media: MediaUploadService,
  ) {}

  async seed(site: SiteContext, key: KeyPrincipal): Promise<void> {
    // A picture first (media 1, with its thumbnails): what the examples attach.
    const picture = await sharp({
      create: { width: 640, height: 480, channels: 3, background: { r: 38, g: 110, b: 160 } },
    })
      .png()
      .toBuffer();
    const [image] = await this.media.uploadBytes(
      site,
      { name: 'membership-card.png', bytes: picture },
      { title: 'Membership card', altText: 'A blue membership card' },
    );
    await this.content.create(site, key, {
      type: 'page',
      title: 'Welcome',
      slug: 'welcome',
      status: 'published',
      excerpt: 'What this demo site holds',
      content:
        '<p>This site was made by the first start: a page, a product with a monthly plan, a newsletter list ' +
        'and a site user who bought the plan. Try the API on them at /docs.</p>',
      tags: ['demo'],
    });
    const category = await this.categories.create(site, { name: 'Memberships', slug: 'memberships' });
    const product = await this.products.create(site, {
      name: 'Monthly membership',
      slug: 'monthly-membership',
      description: 'A recurring plan: paid orders of it start a subscription.',
      attachmentIds: [image.id],
      status: 'published',
      unitAmount: 900,
      currency: 'EUR',
      recurring: { interval: 'month', intervalCount: 1 },
      categoryId: category.id,
      option1: 'Size',
      option2: 'Colour',
    });
    await this.products.createVariant(site, product.product.id, { option1Value: 'Standard', option2Value: 'Blue' });
    const list = await this.lists.create(site, {
      name: 'Weekly digest',
      description: 'The best of the week, every Friday',
      visibility: 'public',
      doubleOptIn: true,
    });
    await this.bulk.sync(site, { listId: list.list.id, emails: [DEMO_CUSTOMER] });
    await this.templates.create(site, {
      type: 'newsletter.campaign',
      name: 'Demo campaign layout',
      subject: '{{ subject }}',
      html: '<div>{{ contentHtml | raw }}</div><p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>',
    });
    const order = await this.orders.create(
      site,
      { lines: [{ productId: product.product.id, quantity: 1 }], customer: { email: DEMO_CUSTOMER, name: 'Ada' } },
      key,
    );
    await this.orders.updatePayment(site, order.order.id, { paymentStatus: 'paid' });
    await this.awaitSubscription(site);
    // Disabled, so the demo's own events are not sent anywhere; a public IP literal needs no DNS.
    await this.webhooks.create(site, {
      url: 'https://93.184.215.14/sitebase',
      description: 'Demo endpoint (disabled)',
      status: 'disabled',
      eventTypes: ['content.*', 'order.*'],
    });
  }

  /**
   * The paid order's `order.subscription_requested` starts the site user and the subscription in
   * an outbox subscriber: the seed relays the outbox itself (another instance, or this one's poll,
   * may hold a batch; then it waits for it) so both exist when the app starts serving.
   */
  private async awaitSubscription(site: SiteContext): Promise<void> {
    const deadline = Date.now() + SUBSCRIPTION_WAIT_MS;
    for (;;) {
      const [user] = (await this.users.list(site, { email: DEMO_CUSTOMER, limit: 1 })).data;
      if (user && (await this.subscriptions.list(site, user.id, { limit: 1 })).data.length > 0) return;
      if (Date.now() > deadline) throw new Error('The demo order’s subscription did not start');
      if ((await this.relay.dispatchBatch()) === 0) await new Promise((r) => setTimeout(r, 50));
    }
  }
}
