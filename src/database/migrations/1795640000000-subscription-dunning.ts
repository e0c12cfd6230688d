import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dunning window (docs/users.md, "Subscriptions"): a `past_due` subscription is canceled
 * (`unpaid`) at `unpaid_cancel_at`, whatever its period's length. The partial index holds only
 * the `past_due` ones: what the period job's dunning sweep reads every minute. A subscription
 * already `past_due` gets the default window (14 days; no site has set one yet) from its oldest
 * unpaid period line, or its period's end if sooner: one left unpaid for longer is canceled by
 * the first sweep, as it would have been under the rule.
 */
export class SubscriptionDunning1795640000000 implements MigrationInterface {
  name = 'SubscriptionDunning1795640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "user_subscriptions" ADD "unpaid_cancel_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "user_subscriptions_unpaid_cancel_at_idx" ON "user_subscriptions" ("unpaid_cancel_at") WHERE status = 'past_due'`,
    );
    await queryRunner.query(
      `UPDATE "user_subscriptions" s SET "unpaid_cancel_at" = LEAST(s."current_period_end", COALESCE(
         (SELECT min(e."created_at") FROM "user_subscription_entries" e
           WHERE e."subscription_id" = s."id" AND e."status" = 'pending' AND e."kind" IN ('initial', 'renewal', 'proration')),
         now()) + interval '14 days')
       WHERE s."status" = 'past_due'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "user_subscriptions_unpaid_cancel_at_idx"`);
    await queryRunner.query(`ALTER TABLE "user_subscriptions" DROP COLUMN "unpaid_cancel_at"`);
  }
}
