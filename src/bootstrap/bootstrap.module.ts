import { Module } from '@nestjs/common';
import { AccountModule } from '../account/account.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { CatalogModule } from '../catalog/catalog.module';
import { ContentModule } from '../content/content.module';
import { EmailModule } from '../email/email.module';
import { NewsletterModule } from '../newsletter/newsletter.module';
import { OrdersModule } from '../orders/orders.module';
import { PaymentsModule } from '../payments/payments.module';
import { UsersModule } from '../users/users.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BootstrapService } from './bootstrap.service';
import { DemoSeedService } from './demo-seed.service';
import { MediaModule } from '../media/media.module';

/** The first start on an empty database: an account, the site `demo`, a key and the demo's data. */
@Module({
  imports: [
    AccountModule,
    ApiKeysModule,
    ContentModule,
    CatalogModule,
    EmailModule,
    MediaModule,
    NewsletterModule,
    OrdersModule,
    PaymentsModule,
    UsersModule,
    WebhooksModule,
  ],
  providers: [BootstrapService, DemoSeedService],
  exports: [BootstrapService],
})
export class BootstrapModule {}
