import { DynamicModule, Module, Type } from '@nestjs/common';
import { AccountModule } from './account/account.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuthModule } from './common/auth/auth.module';
import { CommonModule } from './common/common.module';
import { MetricsModule } from './common/metrics/metrics.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
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
import { WebhooksModule } from './webhooks/webhooks.module';
import { SendersModule } from './senders/senders.module';
import { BootstrapModule } from './bootstrap/bootstrap.module';

/** Feature modules, one per resource group. A new module is added here. */
export const FEATURE_MODULES: Type[] = [
  AccountModule,
  ApiKeysModule,
  V1Module,
  MediaModule,
  ContentModule,
  CollectionsModule,
  EmailModule,
  CatalogModule,
  UsersModule,
  ContactsModule,
  OrdersModule,
  WebhooksModule,
  NewsletterModule,
  SendersModule,
  BootstrapModule,
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, extra: Type[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config),
        MetricsModule,
        CommonModule,
        AuthModule,
        HealthModule,
        ...FEATURE_MODULES,
        ...extra,
      ],
    };
  }
}
