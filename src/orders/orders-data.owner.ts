import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { UserDataRegistry } from '../common/deletion/user-data.registry';
import { FulfillmentNotificationEntity } from './entities/fulfillment-notification.entity';
import { FulfillmentSecretEntity } from './entities/fulfillment-secret.entity';
import { OrderLineEntity } from './entities/order-line.entity';
import { OrderNumberEntity } from './entities/order-number.entity';
import { OrderShipmentEntity } from './entities/order-shipment.entity';
import { OrderEntity } from './entities/order.entity';
import { OrdersErasureRepository } from './orders-erasure.repository';

/**
 * Account deletion: orders are kept for accounting, anonymised: the customer (email,
 * name, phone, address), the metadata and the shipments' tracking go; amounts, statuses and the
 * line snapshots stay, under the account's and site's ids (no foreign key: they outlive both).
 * The provider's notifications, the fulfillment secret and the order counter are deleted.
 * A site user's erasure anonymises the same way the orders they placed (signed in, or under
 * their address): kept for accounting, without the person.
 */
@Injectable()
export class OrdersDataOwner implements OnModuleInit {
  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly repository: OrdersErasureRepository,
    private readonly users: UserDataRegistry,
  ) {}

  onModuleInit(): void {
    this.users.register({
      name: 'orders',
      order: 300,
      preview: async (em, site, user) => [
        {
          resource: 'orders',
          count: await this.repository.countCustomer(em, site.id, user.id, user.email),
          action: 'anonymise',
        },
      ],
      erase: async (em, site, user) => ({
        orders: await this.repository.anonymiseCustomer(em, site.id, user.id, user.email),
      }),
    });
    const deleted = tablesOwner('orders', 350, [
      { resource: 'order_fulfillment_notifications', entity: FulfillmentNotificationEntity },
      { resource: 'order_fulfillment_secrets', entity: FulfillmentSecretEntity },
      { resource: 'order_numbers', entity: OrderNumberEntity },
    ]);
    // Before the catalog (360) and sites: nothing of the orders depends on either.
    this.registry.register({
      name: 'orders',
      order: 350,
      entities: [OrderEntity, OrderLineEntity, OrderShipmentEntity, ...deleted.entities],
      preview: async (em, accountId) => [
        { resource: 'orders', count: await this.repository.countToAnonymise(em, accountId), action: 'anonymise' },
        ...(await deleted.preview(em, accountId)).filter((i) => i.resource !== 'order_numbers'),
      ],
      purge: async (em, accountId) => ({
        ...(await deleted.purge(em, accountId)),
        orders: await this.repository.anonymise(em, accountId),
      }),
    });
  }
}
