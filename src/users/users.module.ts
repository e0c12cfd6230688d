import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { CatalogModule } from '../catalog/catalog.module';
import { EmailModule } from '../email/email.module';
import { SubscriptionEntryEntity } from './entities/subscription-entry.entity';
import { UserSubscriptionEntity } from './entities/user-subscription.entity';
import { MySubscriptionsController } from './subscriptions/my-subscriptions.controller';
import { PaymentProcessors } from './subscriptions/payment-processors.service';
import { SubscriptionAttempts } from './subscriptions/subscription-attempts';
import { SubscriptionBilling } from './subscriptions/subscription-billing';
import { SubscriptionChargesController } from './subscriptions/subscription-charges.controller';
import { SubscriptionChargesService } from './subscriptions/subscription-charges.service';
import { SubscriptionJobsService } from './subscriptions/subscription-jobs.service';
import { SubscriptionPeriods } from './subscriptions/subscription-periods';
import { SubscriptionPlans } from './subscriptions/subscription-plans';
import { UserSubscriptionsRepository } from './subscriptions/user-subscriptions.repository';
import { UserSubscriptionsService } from './subscriptions/user-subscriptions.service';
import { UserSubscriptionsController } from './subscriptions/user-subscriptions.controller';
import { CreditsRepository } from './credits/credits.repository';
import { CreditsService } from './credits/credits.service';
import { CreditEntryEntity } from './entities/credit-entry.entity';
import { SiteUserEntity } from './entities/site-user.entity';
import { UserDeletionEntity } from './entities/user-deletion.entity';
import { ErasureService } from './me/erasure.service';
import { UsersErasureOwner } from './users-erasure.owner';
import { UserOtpEntity } from './entities/user-otp.entity';
import { UserProfileEntryEntity } from './entities/user-profile-entry.entity';
import { UserSessionEntity } from './entities/user-session.entity';
import { MeController } from './me/me.controller';
import { OtpService } from './auth/otp.service';
import { ProfileService } from './me/profile.service';
import { SessionsService } from './auth/sessions.service';
import { UsersAuthController } from './auth/users-auth.controller';
import { UsersDataOwner } from './users-data.owner';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersRetention } from './users-retention';
import { UsersService } from './users.service';
import { AnswersProblems } from '../common/errors/problem-codes';
import { USERS_PROBLEMS } from './users.problems';

/**
 * The people who sign in to a site (docs/users.md): one-time-password sign-in, sessions (the
 * foundation's SessionVerifiers), their profile, credits and subscriptions to recurring products
 * (started by paid orders), and operators' routes over them.
 */
@AnswersProblems(USERS_PROBLEMS)
@Module({
  imports: [
    TypeOrmModule.forFeature([
      SiteUserEntity,
      UserSessionEntity,
      UserOtpEntity,
      UserProfileEntryEntity,
      CreditEntryEntity,
      UserDeletionEntity,
      UserSubscriptionEntity,
      SubscriptionEntryEntity,
    ]),
    EmailModule,
    CatalogModule,
    AccountModule,
  ],
  // The `users/me` controllers first: `users/me` must match before `users/:id`.
  controllers: [
    UsersAuthController,
    MeController,
    MySubscriptionsController,
    UsersController,
    UserSubscriptionsController,
    SubscriptionChargesController,
  ],
  providers: [
    UsersRepository,
    UsersRetention,
    CreditsRepository,
    UserSubscriptionsRepository,
    SessionsService,
    OtpService,
    UsersService,
    ProfileService,
    CreditsService,
    ErasureService,
    UsersDataOwner,
    UsersErasureOwner,
    PaymentProcessors,
    SubscriptionBilling,
    SubscriptionAttempts,
    SubscriptionPeriods,
    SubscriptionPlans,
    UserSubscriptionsService,
    SubscriptionChargesService,
    SubscriptionJobsService,
  ],
  exports: [
    UsersService,
    SessionsService,
    CreditsService,
    UserSubscriptionsService,
    SubscriptionChargesService,
    PaymentProcessors,
  ],
})
export class UsersModule {}
