import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscription charges through a processor (docs/payments.md, "Subscriptions"): each ledger line
 * keeps its failed attempts (how many, the last one's code, message and time) and when our retry
 * schedule asks the processor again; the period job finds the due ones by the partial index.
 */
export class SubscriptionChargeAttempts1795690000000 implements MigrationInterface {
  name = 'SubscriptionChargeAttempts1795690000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "user_subscription_entries"
        ADD COLUMN "charge_attempts" integer NOT NULL DEFAULT 0,
        ADD COLUMN "failure_code" text,
        ADD COLUMN "failure_message" text,
        ADD COLUMN "failed_at" timestamptz(3),
        ADD COLUMN "next_attempt_at" timestamptz(3)`);
    await queryRunner.query(`
      CREATE INDEX "user_subscription_entries_next_attempt_at_idx" ON "user_subscription_entries" ("next_attempt_at")
        WHERE status = 'pending' AND next_attempt_at IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "user_subscription_entries_next_attempt_at_idx"`);
    await queryRunner.query(`
      ALTER TABLE "user_subscription_entries"
        DROP COLUMN "charge_attempts", DROP COLUMN "failure_code", DROP COLUMN "failure_message",
        DROP COLUMN "failed_at", DROP COLUMN "next_attempt_at"`);
  }
}
