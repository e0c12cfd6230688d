import { Injectable, OnModuleInit } from '@nestjs/common';
import { ErasedUser, UserDataRegistry } from '../common/deletion/user-data.registry';
import { CreditsRepository } from './credits/credits.repository';
import { Not } from 'typeorm';
import { CreditEntryEntity } from './entities/credit-entry.entity';
import { UserSubscriptionEntity } from './entities/user-subscription.entity';
import { SiteUserEntity } from './entities/site-user.entity';
import { UserProfileEntryEntity } from './entities/user-profile-entry.entity';
import { UserSessionEntity } from './entities/user-session.entity';
import { UserSubscriptionsRepository } from './subscriptions/user-subscriptions.repository';
import { UsersRepository } from './users.repository';

/**
 * The users module's share of an erasure, last of all owners: the user's profile, sessions,
 * codes (to the address too, before an account existed), credit ledger (the balance is
 * forfeited) and subscriptions (those still running are canceled: they go with their ledger),
 * then the user's row.
 */
@Injectable()
export class UsersErasureOwner implements OnModuleInit {
  constructor(
    private readonly registry: UserDataRegistry,
    private readonly credits: CreditsRepository,
    private readonly users: UsersRepository,
    private readonly subscriptions: UserSubscriptionsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'users',
      order: 1000,
      preview: async (em, site, user: ErasedUser) => [
        {
          resource: 'user_profile_entries',
          count: await em.count(UserProfileEntryEntity, { where: { userId: user.id } }),
          action: 'delete',
        },
        {
          resource: 'user_sessions',
          count: await em.count(UserSessionEntity, { where: { userId: user.id } }),
          action: 'delete',
        },
        {
          resource: 'user_subscriptions',
          count: await em.count(UserSubscriptionEntity, { where: { userId: user.id, status: Not('canceled') } }),
          action: 'cancel',
        },
        { resource: 'credits', count: await this.credits.balance(em, user.id), action: 'forfeit' },
        {
          resource: 'user_credit_entries',
          count: await em.count(CreditEntryEntity, { where: { userId: user.id } }),
          action: 'delete',
        },
        { resource: 'site_users', count: 1, action: 'delete' },
      ],
      erase: async (em, site, user) => {
        const otps = await this.users.deleteOtps(em, site.id, user.email, user.id);
        const subscriptions = await em.find(UserSubscriptionEntity, {
          where: { userId: user.id },
          select: { id: true },
        });
        const entries = subscriptions.length
          ? await this.subscriptions.deleteEntries(
              em,
              subscriptions.map((s) => s.id),
            )
          : 0;
        const counts = {
          user_subscription_entries: entries,
          user_subscriptions: (await em.delete(UserSubscriptionEntity, { userId: user.id })).affected ?? 0,
          user_profile_entries: (await em.delete(UserProfileEntryEntity, { userId: user.id })).affected ?? 0,
          user_sessions: (await em.delete(UserSessionEntity, { userId: user.id })).affected ?? 0,
          user_credit_entries: (await em.delete(CreditEntryEntity, { userId: user.id })).affected ?? 0,
          user_otps: otps,
        };
        const deleted = await em.delete(SiteUserEntity, { id: user.id, siteId: site.id });
        return { ...counts, site_users: deleted.affected ?? 0 };
      },
    });
  }
}
