import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { PaymentAccountEntity } from './entities/payment-account.entity';
import { PaymentCustomerEntity } from './entities/payment-customer.entity';
import { PaymentEventEntity } from './entities/payment-event.entity';

/**
 * Account deletion: a site's Stripe keys, the ids of the events it applied and its users' Customer
 * ids go with it (the Customers themselves stay in the site's Stripe account, which is the site's).
 */
@Injectable()
export class PaymentsDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // Before the orders (350): nothing of theirs depends on these.
    this.registry.register(
      tablesOwner('payments', 340, [
        { resource: 'payment_customers', entity: PaymentCustomerEntity },
        { resource: 'payment_events', entity: PaymentEventEntity },
        { resource: 'payment_accounts', entity: PaymentAccountEntity },
      ]),
    );
  }
}
