import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry } from '../common/deletion/account-data.registry';
import { IdempotencyKeyEntity } from '../common/idempotency/idempotency-key.entity';
import { OutboxEventEntity } from '../common/outbox/outbox-event.entity';
import { SiteEntity } from '../common/tenancy/entities/site.entity';
import { AccountRepository } from './account.repository';
import { SitesService } from './sites.service';

/**
 * Account deletion, the account module's share: its sites once every module has
 * removed their data, then the account's own bookkeeping (events, idempotency records). The
 * purge job removes the account row after every owner; the deletion request stays as the
 * record that the deletion happened.
 */
@Injectable()
export class AccountDataOwner implements OnModuleInit {
  private readonly logger = new Logger('AccountDeletion');

  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly sites: SitesService,
    private readonly repository: AccountRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'sites',
      order: 900,
      entities: [SiteEntity],
      preview: async (em, accountId) => [
        { resource: 'sites', count: await em.count(SiteEntity, { where: { accountId } }), action: 'delete' },
      ],
      purge: async (em, accountId) => {
        const deleted = (await em.delete(SiteEntity, { accountId })).affected ?? 0;
        this.sites.forgetAccount(accountId);
        return { sites: deleted };
      },
    });
    this.registry.register({
      name: 'account_records',
      order: 1000,
      entities: [OutboxEventEntity, IdempotencyKeyEntity],
      preview: async (em, accountId) => [
        { resource: 'events', count: await em.count(OutboxEventEntity, { where: { accountId } }), action: 'delete' },
      ],
      purge: async (em, accountId) => {
        // Events of the last moments (the deletion's own, with a grace period of 0) that the
        // relay has not handed on yet: their subscribers' data goes with the account, so they
        // are dropped here, and said so.
        const undelivered = await this.repository.undeliveredEvents(em, accountId);
        if (undelivered.length > 0)
          this.logger.warn(
            { accountId, events: Object.fromEntries(undelivered.map((e) => [e.name, e.n])) },
            'Account purged: dropping events not yet dispatched',
          );
        const events = await em.delete(OutboxEventEntity, { accountId });
        await this.repository.deleteIdempotencyKeys(em, accountId);
        return { events: events.affected ?? 0 };
      },
    });
  }
}
