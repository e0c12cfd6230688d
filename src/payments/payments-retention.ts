import { Injectable, OnModuleInit } from '@nestjs/common';
import { RetentionRegistry } from '../common/retention/retention.registry';
import { PaymentEventsRepository } from './payment-events.repository';
import { PaymentsConfig } from './payments.config';

/** The payments module's retention rule (docs/deployment.md, "Storage and retention"). */
@Injectable()
export class PaymentsRetention implements OnModuleInit {
  constructor(
    private readonly registry: RetentionRegistry,
    private readonly events: PaymentEventsRepository,
    private readonly config: PaymentsConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'payments.events',
      table: 'payment_events',
      setting: 'PAYMENT_EVENT_RETENTION_DAYS',
      what: "ids of Stripe events received (the redelivery guard), past Stripe's 30 days of resending",
      run: (db, limit) => this.events.deleteOld(db, this.config.PAYMENT_EVENT_RETENTION_DAYS, limit),
    });
  }
}
