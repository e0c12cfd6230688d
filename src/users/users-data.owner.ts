import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { CreditEntryEntity } from './entities/credit-entry.entity';
import { SubscriptionEntryEntity } from './entities/subscription-entry.entity';
import { UserSubscriptionEntity } from './entities/user-subscription.entity';
import { SiteUserEntity } from './entities/site-user.entity';
import { UserDeletionEntity } from './entities/user-deletion.entity';
import { UserOtpEntity } from './entities/user-otp.entity';
import { UserProfileEntryEntity } from './entities/user-profile-entry.entity';
import { UserSessionEntity } from './entities/user-session.entity';

/** Account deletion: the users of the account's sites and everything of theirs. */
@Injectable()
export class UsersDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    this.registry.register(
      tablesOwner('users', 200, [
        { resource: 'user_subscription_entries', entity: SubscriptionEntryEntity },
        { resource: 'user_subscriptions', entity: UserSubscriptionEntity },
        {
          resource: 'user_credit_entries',
          entity: CreditEntryEntity,
          via: { column: 'user_id', parent: 'site_users' },
        },
        {
          resource: 'user_profile_entries',
          entity: UserProfileEntryEntity,
          via: { column: 'user_id', parent: 'site_users' },
        },
        { resource: 'user_sessions', entity: UserSessionEntity, via: { column: 'user_id', parent: 'site_users' } },
        { resource: 'user_otps', entity: UserOtpEntity },
        { resource: 'site_users', entity: SiteUserEntity },
        { resource: 'user_deletions', entity: UserDeletionEntity },
      ]),
    );
  }
}
