import { DynamicModule, Module, Type } from '@nestjs/common';
import { AccountModule } from './account/account.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuthModule } from './common/auth/auth.module';
import { CommonModule } from './common/common.module';
import { MetricsModule } from './common/metrics/metrics.module';
import { ConfigModule } from './config/config.module';
import { Configs } from './config/configs';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { HttpPipelineModule } from './http-pipeline';
import { V1Module } from './v1/v1.module';
import { MediaModule } from './media/media.module';
import { ContentModule } from './content/content.module';
import { CollectionsModule } from './collections/collections.module';
import { EmailModule } from './email/email.module';
import { CatalogModule } from './catalog/catalog.module';
import { UsersModule } from './users/users.module';
import { ContactsModule } from './contacts/contacts.module';
import { NewsletterModule } from './newsletter/newsletter.module';
import { OrdersModule } from './orders/orders.module';
import { PaymentsModule } from './payments/payments.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { SendersModule } from './senders/senders.module';
import { BootstrapModule } from './bootstrap/bootstrap.module';

/**
 * Feature modules, one per resource group. A new module is added here. Their routes are
 * registered in this order and Express tries them in it, one path expression each: the modules
 * whose public routes take the most traffic (reads, tracking, a member's session, v1) come
 * first, operator and account administration last (docs/performance.md, "Routing").
 */
export const FEATURE_MODULES: Type[] = [
  ContentModule,
  CatalogModule,
  V1Module,
  NewsletterModule,
  UsersModule,
  MediaModule,
  CollectionsModule,
  OrdersModule,
  PaymentsModule,
  ContactsModule,
  EmailModule,
  WebhooksModule,
  // new:module: feature modules above (npm run new:module adds its module here, before administration)
  AccountModule,
  ApiKeysModule,
  SendersModule,
  BootstrapModule,
];

@Module({})
export class AppModule {
  static forRoot(configs: Configs, extra: Type[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(configs),
        DatabaseModule.forRoot(configs.database),
        MetricsModule,
        CommonModule,
        AuthModule,
        HttpPipelineModule,
        HealthModule,
        ...FEATURE_MODULES,
        ...extra,
      ],
    };
  }
}
