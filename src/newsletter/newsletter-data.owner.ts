import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { UserDataRegistry } from '../common/deletion/user-data.registry';
import { ImportEntity } from './entities/import.entity';
import { MembershipEntity } from './entities/membership.entity';
import { NewsletterListEntity } from './entities/newsletter-list.entity';
import { SigningKeyEntity } from './entities/signing-key.entity';
import { SubscriptionEntity } from './entities/subscription.entity';
import { SuppressionEntity } from './entities/suppression.entity';
import { SubscriptionsService } from './subscriptions.service';

/**
 * Account deletion: every newsletter table of the account's sites. A site user's erasure: the
 * subscription of their address (its memberships go with it), as a deletion: no hash is kept,
 * since the person asked to be forgotten.
 */
@Injectable()
export class NewsletterDataOwner implements OnModuleInit {
  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly users: UserDataRegistry,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  onModuleInit(): void {
    // Nothing outside the module refers to these; before sites. Staged import rows go with their import.
    this.registry.register(
      tablesOwner('newsletter', 320, [
        { resource: 'newsletter_imports', entity: ImportEntity },
        {
          resource: 'newsletter_memberships',
          entity: MembershipEntity,
          via: { column: 'list_id', parent: 'newsletter_lists' },
        },
        { resource: 'newsletter_subscriptions', entity: SubscriptionEntity },
        { resource: 'newsletter_lists', entity: NewsletterListEntity },
        { resource: 'newsletter_suppressions', entity: SuppressionEntity },
        { resource: 'newsletter_signing_keys', entity: SigningKeyEntity },
      ]),
    );
    this.users.register({
      name: 'newsletter',
      order: 310,
      preview: async (em, site, user) => [
        {
          resource: 'newsletter_subscriptions',
          count: await em.count(SubscriptionEntity, { where: { siteId: site.id, email: user.email } }),
          action: 'delete',
        },
      ],
      erase: async (em, site, user) => ({
        newsletter_subscriptions: await this.subscriptions.eraseByEmail(em, site, user.email),
      }),
    });
  }
}
