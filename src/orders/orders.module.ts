import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { CatalogModule } from '../catalog/catalog.module';
import { EmailModule } from '../email/email.module';
import { UsersModule } from '../users/users.module';
import { EmailTemplateTypes } from '../email/email.service';
import { FulfillmentNotificationEntity } from './entities/fulfillment-notification.entity';
import { FulfillmentSecretEntity } from './entities/fulfillment-secret.entity';
import { OrderLineEntity } from './entities/order-line.entity';
import { OrderNumberEntity } from './entities/order-number.entity';
import { OrderShipmentEntity } from './entities/order-shipment.entity';
import { OrderEntity } from './entities/order.entity';
import { FulfillmentNotificationsController } from './fulfillment-notifications.controller';
import { FulfillmentNotificationsRepository } from './fulfillment-notifications.repository';
import { FulfillmentNotificationsService } from './fulfillment-notifications.service';
import { OrderExpiryJob } from './order-expiry.job';
import { OrderFulfillmentService } from './order-fulfillment.service';
import { OrderPaymentRecords } from './order-payment-records';
import { ORDER_MAIL_TYPES } from './order-mail';
import { OrdersDataOwner } from './orders-data.owner';
import { OrdersErasureRepository } from './orders-erasure.repository';
import { OrdersController } from './orders.controller';
import { OrderHoldsRepository } from './order-holds.repository';
import { OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';
import { AnswersProblems } from '../common/errors/problem-codes';
import { ORDERS_PROBLEMS } from './orders.problems';

/**
 * Orders (docs/orders.md): placed from the catalog's prices and stock (CatalogService), holding
 * it until paid or expired (OrderExpiryJob), paid, fulfilled by the API or by a provider's signed
 * notifications; their mail goes through the
 * email module, whose template types `orders.confirmation` and `orders.shipped` this module
 * registers when it starts.
 */
@AnswersProblems(ORDERS_PROBLEMS)
@Module({
  imports: [
    TypeOrmModule.forFeature([
      OrderEntity,
      OrderLineEntity,
      OrderShipmentEntity,
      OrderNumberEntity,
      FulfillmentSecretEntity,
      FulfillmentNotificationEntity,
    ]),
    AccountModule,
    CatalogModule,
    EmailModule,
    UsersModule,
  ],
  controllers: [OrdersController, FulfillmentNotificationsController],
  providers: [
    OrdersRepository,
    OrderHoldsRepository,
    OrdersErasureRepository,
    FulfillmentNotificationsRepository,
    OrdersService,
    OrderFulfillmentService,
    OrderPaymentRecords,
    OrderExpiryJob,
    FulfillmentNotificationsService,
    OrdersDataOwner,
  ],
  exports: [OrdersService],
})
export class OrdersModule implements OnModuleInit {
  constructor(private readonly types: EmailTemplateTypes) {}

  onModuleInit(): void {
    for (const type of ORDER_MAIL_TYPES) this.types.register(type);
  }
}
