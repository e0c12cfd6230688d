import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CATALOG_EVENTS, ProductEventPayload } from '../../catalog/catalog.events';
import { ProductSyncService } from '../../catalog/product-sync.service';
import { OutboxBatch, OutboxEvent, OutboxRelay } from '../../common/outbox/outbox-relay.service';
import { PaymentAccountsService } from '../payment-accounts.service';
import { PAYMENTS_EVENTS, PaymentAccountPayload } from '../payments.events';
import { CatalogSyncService } from './catalog-sync.service';

/**
 * What sets the catalog sync off (docs/payments.md, "Catalog sync"), in the outbox relay's
 * transaction, DB work only: a product written in a connected site (`product.created` /
 * `product.updated`, variants included) queues its sync; a site connected or given a mode
 * (`payment_account.updated`) queues the sweep of its products; a product or variant deleted
 * queues the deactivation of its Stripe objects, in the deleting transaction (the rows, and so
 * their Stripe ids, are gone by the time the relay sees `product.deleted`). Sites without Stripe
 * are skipped by `wants`, with one read per batch and site.
 */
@Injectable()
export class CatalogSyncSubscriber implements OnModuleInit {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly accounts: PaymentAccountsService,
    private readonly catalog: ProductSyncService,
    private readonly sync: CatalogSyncService,
  ) {}

  onModuleInit(): void {
    for (const e of [CATALOG_EVENTS.productCreated, CATALOG_EVENTS.productUpdated])
      this.relay.subscribe(e.name, (em, event, batch) => this.productChanged(em, event, batch), {
        wants: async (em, event, batch) => (await this.modesOf(em, event, batch)).length > 0,
      });
    this.relay.subscribe(PAYMENTS_EVENTS.accountUpdated.name, (em, event) => this.accountChanged(em, event), {
      wants: (_em, event) => Promise.resolve((event.payload as Partial<PaymentAccountPayload>).processor === 'stripe'),
    });
    this.catalog.onRetired((em, site, items) => this.sync.queueRetire(em, site, items));
  }

  private modesOf(em: EntityManager, event: OutboxEvent, batch: OutboxBatch) {
    const siteId = event.siteId;
    if (siteId === null) return Promise.resolve([]);
    return batch.memo(`payments:modes:${siteId}`, () => this.accounts.modesOf(siteId, em));
  }

  private async productChanged(em: EntityManager, event: OutboxEvent, batch: OutboxBatch): Promise<void> {
    const { id } = event.payload as Partial<ProductEventPayload>;
    if (event.siteId === null || !Number.isSafeInteger(id)) return;
    const site = { id: event.siteId, accountId: event.accountId };
    await this.sync.productChanged(em, site, id!, await this.modesOf(em, event, batch));
  }

  private async accountChanged(em: EntityManager, event: OutboxEvent): Promise<void> {
    if (event.siteId === null) return;
    await this.sync.queueSite(em, { id: event.siteId, accountId: event.accountId });
  }
}
