import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Site users' subscriptions to recurring products and their ledger of charges and prorations
 * (docs/users.md), and the signed-in user who placed an order (docs/orders.md).
 */
export class UserSubscriptions1795390000000 implements MigrationInterface {
  name = 'UserSubscriptions1795390000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "user_subscriptions" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "user_id" bigint NOT NULL,
      "product_id" bigint NOT NULL,
      "variant_id" bigint,
      "quantity" integer NOT NULL DEFAULT 1,
      "status" text NOT NULL,
      "unit_amount" bigint NOT NULL,
      "currency" text NOT NULL,
      "interval" text NOT NULL,
      "interval_count" integer NOT NULL,
      "current_period_start" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "current_period_end" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "trial_ends_at" TIMESTAMP(3) WITH TIME ZONE,
      "cancel_at_period_end" boolean NOT NULL DEFAULT false,
      "canceled_at" TIMESTAMP(3) WITH TIME ZONE,
      "cancel_reason" text,
      "paused_at" TIMESTAMP(3) WITH TIME ZONE,
      "resumes_at" TIMESTAMP(3) WITH TIME ZONE,
      "processor" text NOT NULL DEFAULT 'manual',
      "processor_subscription_id" text,
      "order_id" bigint,
      "order_line_id" bigint,
      "version" integer NOT NULL DEFAULT 1,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "user_subscriptions_status_check"
        CHECK ("status" IN ('trialing', 'active', 'paused', 'past_due', 'canceled')),
      CONSTRAINT "user_subscriptions_interval_check" CHECK ("interval" IN ('day', 'week', 'month', 'year')),
      CONSTRAINT "user_subscriptions_quantity_check" CHECK ("quantity" > 0),
      CONSTRAINT "user_subscriptions_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "user_subscriptions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "site_users"("id") ON DELETE CASCADE
    )`);
    // A user's subscriptions, newest first (both lists); the order line that started one, once.
    await queryRunner.query(
      `CREATE INDEX "user_subscriptions_user_id_id_idx" ON "user_subscriptions" ("user_id", "id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "user_subscriptions_order_line_id_key" ON "user_subscriptions" ("order_line_id")
        WHERE order_line_id IS NOT NULL`,
    );
    // The period job's work: periods that ended, of subscriptions still running.
    await queryRunner.query(
      `CREATE INDEX "user_subscriptions_due_idx" ON "user_subscriptions" ("current_period_end")
        WHERE status IN ('trialing', 'active')`,
    );
    await queryRunner.query(`CREATE INDEX "user_subscriptions_site_id_idx" ON "user_subscriptions" ("site_id")`);

    await queryRunner.query(`CREATE TABLE "user_subscription_entries" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "subscription_id" bigint NOT NULL,
      "kind" text NOT NULL,
      "amount" bigint NOT NULL,
      "currency" text NOT NULL,
      "description" text NOT NULL DEFAULT '',
      "status" text NOT NULL,
      "paid_with" text,
      "credit_entry_id" bigint,
      "processor_charge_id" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "paid_at" TIMESTAMP(3) WITH TIME ZONE,
      CONSTRAINT "user_subscription_entries_kind_check" CHECK ("kind" IN ('charge', 'renewal', 'proration')),
      CONSTRAINT "user_subscription_entries_status_check" CHECK ("status" IN ('pending', 'paid', 'recorded')),
      CONSTRAINT "user_subscription_entries_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "user_subscription_entries_subscription_id_fkey" FOREIGN KEY ("subscription_id")
        REFERENCES "user_subscriptions"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "user_subscription_entries_subscription_id_id_idx" ON "user_subscription_entries" ("subscription_id", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "user_subscription_entries_site_id_idx" ON "user_subscription_entries" ("site_id")`,
    );

    // Orders placed by a signed-in user: theirs to list.
    await queryRunner.query(`ALTER TABLE "orders" ADD "user_id" bigint`);
    await queryRunner.query(
      `CREATE INDEX "orders_site_id_user_id_created_at_id_idx" ON "orders" ("site_id", "user_id", "created_at", "id")
        WHERE user_id IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "orders_site_id_user_id_created_at_id_idx"');
    await queryRunner.query('ALTER TABLE "orders" DROP COLUMN "user_id"');
    await queryRunner.query('DROP TABLE "user_subscription_entries"');
    await queryRunner.query('DROP TABLE "user_subscriptions"');
  }
}
