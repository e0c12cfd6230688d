import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments (docs/payments.md): a site's connection to Stripe (its keys and webhook secrets per
 * mode, sealed with SECRETS_ENCRYPTION_KEY; a hint of the key for people) and the Stripe events
 * it applied, one row per event id, so a redelivered event changes nothing; and the Stripe
 * Customer of each site user per mode, with the payment method saved for off-session charges.
 */
export class Payments1795660000000 implements MigrationInterface {
  name = 'Payments1795660000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "payment_accounts" (
        "site_id" bigint NOT NULL,
        "processor" text NOT NULL DEFAULT 'stripe',
        "mode" text NOT NULL,
        "test_secret_key" text,
        "test_webhook_secret" text,
        "test_key_hint" text,
        "live_secret_key" text,
        "live_webhook_secret" text,
        "live_key_hint" text,
        "version" integer NOT NULL DEFAULT 1,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        "updated_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "payment_accounts_pkey" PRIMARY KEY ("site_id"),
        CONSTRAINT "payment_accounts_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE,
        CONSTRAINT "payment_accounts_processor_check" CHECK ("processor" IN ('stripe')),
        CONSTRAINT "payment_accounts_mode_check" CHECK ("mode" IN ('test', 'live')),
        CONSTRAINT "payment_accounts_test_check" CHECK (("test_secret_key" IS NULL) = ("test_webhook_secret" IS NULL)),
        CONSTRAINT "payment_accounts_live_check" CHECK (("live_secret_key" IS NULL) = ("live_webhook_secret" IS NULL)),
        CONSTRAINT "payment_accounts_mode_keys_check" CHECK (
          ("mode" = 'test' AND "test_secret_key" IS NOT NULL) OR ("mode" = 'live' AND "live_secret_key" IS NOT NULL))
      )`);
    await queryRunner.query(`
      CREATE TABLE "payment_events" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "site_id" bigint NOT NULL,
        "processor" text NOT NULL DEFAULT 'stripe',
        "event_id" text NOT NULL,
        "mode" text NOT NULL,
        "type" text NOT NULL,
        "object_id" text,
        "outcome" text NOT NULL,
        "received_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "payment_events_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "payment_events_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE,
        CONSTRAINT "payment_events_mode_check" CHECK ("mode" IN ('test', 'live')),
        CONSTRAINT "payment_events_outcome_check" CHECK ("outcome" IN ('applied', 'ignored'))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "payment_events_site_id_processor_event_id_key" ON "payment_events" ("site_id", "processor", "event_id")`,
    );
    await queryRunner.query(`
      CREATE TABLE "payment_customers" (
        "site_id" bigint NOT NULL,
        "user_id" bigint NOT NULL,
        "mode" text NOT NULL,
        "customer_id" text NOT NULL,
        "payment_method_id" text,
        "created_at" timestamptz(3) NOT NULL DEFAULT now(),
        "updated_at" timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT "payment_customers_pkey" PRIMARY KEY ("site_id", "user_id", "mode"),
        CONSTRAINT "payment_customers_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE,
        CONSTRAINT "payment_customers_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "site_users"("id") ON DELETE CASCADE,
        CONSTRAINT "payment_customers_mode_check" CHECK ("mode" IN ('test', 'live'))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "payment_customers_site_id_mode_customer_id_key" ON "payment_customers" ("site_id", "mode", "customer_id")`,
    );
    // Who collects an order and a subscription, and in which Stripe mode.
    await queryRunner.query(`
      ALTER TABLE "orders"
        ADD COLUMN "payment_processor" text NOT NULL DEFAULT 'manual',
        ADD COLUMN "payment_mode" text,
        ADD CONSTRAINT "orders_payment_processor_check" CHECK ("payment_processor" IN ('manual', 'stripe')),
        ADD CONSTRAINT "orders_payment_mode_check" CHECK ("payment_mode" IN ('test', 'live'))`);
    await queryRunner.query(`
      ALTER TABLE "user_subscriptions"
        ADD COLUMN "processor_mode" text,
        ADD CONSTRAINT "user_subscriptions_processor_mode_check" CHECK ("processor_mode" IN ('test', 'live'))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "user_subscriptions" DROP COLUMN "processor_mode"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "payment_mode", DROP COLUMN "payment_processor"`);
    await queryRunner.query(`DROP TABLE "payment_customers"`);
    await queryRunner.query(`DROP TABLE "payment_events"`);
    await queryRunner.query(`DROP TABLE "payment_accounts"`);
  }
}
