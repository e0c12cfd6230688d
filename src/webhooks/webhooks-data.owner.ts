import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { UserDataRegistry } from '../common/deletion/user-data.registry';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { WebhooksRepository } from './webhooks.repository';

/**
 * Account deletion: the endpoints of the account's sites and their delivery log.
 * Deliveries still pending when the purge runs (events of the last moments, e.g. the
 * deletion's own event with a grace period of 0) are dropped with a log line naming them: the
 * endpoints they were for are deleted with the account.
 */
@Injectable()
export class WebhooksDataOwner implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly users: UserDataRegistry,
    private readonly repository: WebhooksRepository,
  ) {}

  onModuleInit(): void {
    // Attempts go with their deliveries (on delete cascade).
    const tables = tablesOwner('webhooks', 250, [
      {
        resource: 'webhook_deliveries',
        entity: WebhookDeliveryEntity,
        via: { column: 'endpoint_id', parent: 'webhook_endpoints' },
      },
      { resource: 'webhook_endpoints', entity: WebhookEndpointEntity },
    ]);
    this.users.register({
      name: 'webhooks',
      order: 510,
      preview: () => Promise.resolve([]),
      erase: async (em, site, user) => ({
        webhook_deliveries: await this.repository.eraseAddress(em, site.id, user.email),
      }),
    });
    this.registry.register({
      ...tables,
      entities: [WebhookAttemptEntity, ...tables.entities],
      purge: async (em, accountId) => {
        const pending = await this.repository.pendingOfAccount(em, accountId);
        if (pending.length > 0)
          this.logger.warn(
            { accountId, pending: Object.fromEntries(pending.map((p) => [p.eventType, p.n])) },
            'Account purged: dropping webhook deliveries not yet delivered',
          );
        return tables.purge(em, accountId);
      },
    });
  }
}
