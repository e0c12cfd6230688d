import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { AnswersProblems } from '../common/errors/problem-codes';
import { CatalogSyncController } from './catalog/catalog-sync.controller';
import { CatalogSyncJob } from './catalog/catalog-sync.job';
import { CatalogSyncService } from './catalog/catalog-sync.service';
import { CatalogSyncSubscriber } from './catalog/catalog-sync.subscriber';
import { OrdersModule } from '../orders/orders.module';
import { PaymentAccountEntity } from './entities/payment-account.entity';
import { PaymentCustomerEntity } from './entities/payment-customer.entity';
import { PaymentEventEntity } from './entities/payment-event.entity';
import { PaymentAccountsController } from './payment-accounts.controller';
import { PaymentAccountsService } from './payment-accounts.service';
import { PaymentCustomersRepository } from './payment-customers.repository';
import { PaymentEventsRepository } from './payment-events.repository';
import { PaymentsRetention } from './payments-retention';
import { PaymentsDataOwner } from './payments-data.owner';
import { PAYMENTS_PROBLEMS } from './payments.problems';
import { OrderPaymentEvents } from './orders/order-payment-events';
import { OrderPaymentJobs } from './orders/order-payment-jobs';
import { OrderPaymentsController } from './orders/order-payments.controller';
import { OrderPaymentsService } from './orders/order-payments.service';
import { StripeCustomers } from './stripe/stripe-customers';
import { StripeClients } from './stripe/stripe-clients';
import { StripeEventHandlers } from './stripe/stripe-event-handlers';
import { StripeEventsController } from './stripe/stripe-events.controller';
import { StripeEventsService } from './stripe/stripe-events.service';
import { StripeChargeEvents } from './subscriptions/stripe-charge-events';
import { StripeChargeJob } from './subscriptions/stripe-charge.job';
import { StripeSubscriptionProcessor } from './subscriptions/stripe-subscription-processor';
import { UsersModule } from '../users/users.module';

/**
 * Payments through Stripe (docs/payments.md): a site's connection (keys sealed at rest), the
 * Stripe client per site and mode, and its signed events, applied once each by the handlers the
 * adapters register (catalog sync, order payments, subscription charges).
 */
@AnswersProblems(PAYMENTS_PROBLEMS)
@Module({
  imports: [
    TypeOrmModule.forFeature([PaymentAccountEntity, PaymentEventEntity, PaymentCustomerEntity]),
    CatalogModule,
    OrdersModule,
    UsersModule,
  ],
  controllers: [PaymentAccountsController, StripeEventsController, CatalogSyncController, OrderPaymentsController],
  providers: [
    CatalogSyncService,
    CatalogSyncJob,
    CatalogSyncSubscriber,
    PaymentAccountsService,
    PaymentCustomersRepository,
    PaymentEventsRepository,
    PaymentsRetention,
    PaymentsDataOwner,
    StripeClients,
    StripeEventHandlers,
    StripeEventsService,
    StripeSubscriptionProcessor,
    StripeChargeJob,
    StripeChargeEvents,
    StripeCustomers,
    OrderPaymentsService,
    OrderPaymentEvents,
    OrderPaymentJobs,
  ],
  exports: [PaymentAccountsService],
})
export class PaymentsModule {}
