import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { PaymentAccountEntity } from './entities/payment-account.entity';
import { PaymentEventEntity } from './entities/payment-event.entity';

/** Account deletion: a site's Stripe keys and the ids of the events it applied go with it. */
@Injectable()
export class PaymentsDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // Before the orders (350): nothing of theirs depends on these.
    this.registry.register(
      tablesOwner('payments', 340, [
        { resource: 'payment_events', entity: PaymentEventEntity },
        { resource: 'payment_accounts', entity: PaymentAccountEntity },
      ]),
    );
  }
}
