import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscription billing after Stripe's model (docs/users.md, "Subscriptions"): a subscription's
 * `balance` (minor units owed to the customer, from credited prorations), the `initial` ledger
 * line of a first period, the period a line starts or adjusts, the balance a line used, and the
 * period job's index, which now also finds `past_due` subscriptions whose period ended.
 */
export class SubscriptionBilling1795490000000 implements MigrationInterface {
  name = 'SubscriptionBilling1795490000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "user_subscriptions" ADD "balance" bigint NOT NULL DEFAULT 0,
         ADD CONSTRAINT "user_subscriptions_balance_check" CHECK ("balance" >= 0)`,
    );
    await queryRunner.query('DROP INDEX "user_subscriptions_due_idx"');
    await queryRunner.query(
      `CREATE INDEX "user_subscriptions_due_idx" ON "user_subscriptions" ("current_period_end")
        WHERE status IN ('trialing', 'active', 'past_due')`,
    );
    await queryRunner.query(
      `ALTER TABLE "user_subscription_entries" ADD "period_start" TIMESTAMP(3) WITH TIME ZONE,
         ADD "period_end" TIMESTAMP(3) WITH TIME ZONE,
         ADD "credit_applied" bigint NOT NULL DEFAULT 0,
         ADD CONSTRAINT "user_subscription_entries_credit_applied_check" CHECK ("credit_applied" >= 0),
         DROP CONSTRAINT "user_subscription_entries_kind_check",
         ADD CONSTRAINT "user_subscription_entries_kind_check"
           CHECK ("kind" IN ('initial', 'renewal', 'proration', 'charge'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "user_subscription_entries" WHERE "kind" = 'initial'`);
    await queryRunner.query(
      `ALTER TABLE "user_subscription_entries" DROP CONSTRAINT "user_subscription_entries_kind_check",
         ADD CONSTRAINT "user_subscription_entries_kind_check" CHECK ("kind" IN ('charge', 'renewal', 'proration')),
         DROP COLUMN "credit_applied", DROP COLUMN "period_end", DROP COLUMN "period_start"`,
    );
    await queryRunner.query('DROP INDEX "user_subscriptions_due_idx"');
    await queryRunner.query(
      `CREATE INDEX "user_subscriptions_due_idx" ON "user_subscriptions" ("current_period_end")
        WHERE status IN ('trialing', 'active')`,
    );
    await queryRunner.query('ALTER TABLE "user_subscriptions" DROP COLUMN "balance"');
  }
}
