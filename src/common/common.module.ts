import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangeNotifications } from '../database/change-notifications';
import { SecretsBox } from './crypto/secrets-box';
import { ServerKeys } from './crypto/server-keys';
import { SessionVerifiers } from './auth/session-verifiers';
import { AccountDataRegistry } from './deletion/account-data.registry';
import { UserDataRegistry } from './deletion/user-data.registry';
import { BlockedClients } from './rate-limit/blocked-clients';
import { PublicUrls } from './http/public-urls';
import { RateLimitStore } from './rate-limit/rate-limit.store';
import { IdempotencyKeyEntity } from './idempotency/idempotency-key.entity';
import { MailHtml } from './html/mail-html';
import { MaintenanceService } from './maintenance.service';
import { OutboxEventEntity } from './outbox/outbox-event.entity';
import { OutboxRelay } from './outbox/outbox-relay.service';
import { QueueService } from './queue/queue.service';
import { RetentionRegistry } from './retention/retention.registry';
import { Clock } from './scheduling/clock';

/** The cross-cutting services every feature module may inject. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity, IdempotencyKeyEntity])],
  providers: [
    QueueService,
    OutboxRelay,
    AccountDataRegistry,
    UserDataRegistry,
    SessionVerifiers,
    RateLimitStore,
    BlockedClients,
    MaintenanceService,
    RetentionRegistry,
    ChangeNotifications,
    PublicUrls,
    Clock,
    MailHtml,
    ServerKeys,
    SecretsBox,
  ],
  exports: [
    QueueService,
    OutboxRelay,
    AccountDataRegistry,
    UserDataRegistry,
    SessionVerifiers,
    RateLimitStore,
    BlockedClients,
    RetentionRegistry,
    ChangeNotifications,
    PublicUrls,
    Clock,
    MailHtml,
    ServerKeys,
    SecretsBox,
  ],
})
export class CommonModule {}
