import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders, their lines and shipments, fulfillment notifications and secrets (docs/orders.md).
 * `orders` (and its lines and shipments) keep `site_id` and `account_id` without a foreign key:
 * orders outlive their site and account, anonymised, for accounting.
 */
export class Orders1795340000000 implements MigrationInterface {
  name = 'Orders1795340000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "orders" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "account_id" bigint NOT NULL,
      "number" integer NOT NULL,
      "payment_status" text NOT NULL DEFAULT 'pending',
      "fulfillment_status" text NOT NULL DEFAULT 'unfulfilled',
      "processor_payment_id" text,
      "currency" text NOT NULL,
      "subtotal_amount" bigint NOT NULL,
      "tax_amount" bigint NOT NULL,
      "total_amount" bigint NOT NULL,
      "customer_email" text,
      "customer_name" text,
      "customer_phone" text,
      "shipping_address" jsonb,
      "metadata" jsonb,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "paid_at" TIMESTAMP(3) WITH TIME ZONE,
      "refunded_at" TIMESTAMP(3) WITH TIME ZONE,
      "canceled_at" TIMESTAMP(3) WITH TIME ZONE,
      "anonymised_at" TIMESTAMP(3) WITH TIME ZONE,
      CONSTRAINT "orders_payment_status_check" CHECK ("payment_status" IN ('pending', 'paid', 'refunded')),
      CONSTRAINT "orders_fulfillment_status_check"
        CHECK ("fulfillment_status" IN ('unfulfilled', 'partially_fulfilled', 'fulfilled', 'canceled')),
      CONSTRAINT "orders_amounts_check"
        CHECK ("subtotal_amount" >= 0 AND "tax_amount" >= 0 AND "total_amount" >= 0),
      CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
    )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "orders_site_id_number_key" ON "orders" ("site_id", "number")`);
    await queryRunner.query(
      `CREATE INDEX "orders_site_id_created_at_id_idx" ON "orders" ("site_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "orders_site_id_customer_email_created_at_id_idx" ON "orders" ("site_id", "customer_email", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "orders_site_id_fulfillment_status_created_at_id_idx" ON "orders" ("site_id", "fulfillment_status", "created_at", "id")`,
    );
    await queryRunner.query(`CREATE INDEX "orders_account_id_idx" ON "orders" ("account_id")`);

    await queryRunner.query(`CREATE TABLE "order_lines" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "order_id" bigint NOT NULL,
      "site_id" bigint NOT NULL,
      "position" integer NOT NULL,
      "product_id" bigint NOT NULL,
      "variant_id" bigint,
      "name" text NOT NULL,
      "sku" text,
      "unit_amount" bigint NOT NULL,
      "quantity" integer NOT NULL,
      "tax_code" text,
      "tax_behavior" text NOT NULL,
      "tax_rate" integer NOT NULL,
      "subtotal_amount" bigint NOT NULL,
      "tax_amount" bigint NOT NULL,
      "total_amount" bigint NOT NULL,
      "recurring_interval" text,
      "recurring_interval_count" integer,
      "fulfilled_quantity" integer NOT NULL DEFAULT 0,
      CONSTRAINT "order_lines_quantity_check"
        CHECK ("quantity" >= 1 AND "fulfilled_quantity" >= 0 AND "fulfilled_quantity" <= "quantity"),
      CONSTRAINT "order_lines_tax_behavior_check" CHECK ("tax_behavior" IN ('exclusive', 'inclusive', 'unspecified')),
      CONSTRAINT "order_lines_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "order_lines_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "order_lines_order_id_position_idx" ON "order_lines" ("order_id", "position")`,
    );

    await queryRunner.query(`CREATE TABLE "order_shipments" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "order_id" bigint NOT NULL,
      "site_id" bigint NOT NULL,
      "carrier" text NOT NULL,
      "tracking_number" text NOT NULL,
      "tracking_url" text,
      "lines" jsonb NOT NULL,
      "notification_id" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "order_shipments_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "order_shipments_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "order_shipments_order_id_id_idx" ON "order_shipments" ("order_id", "id")`);

    await queryRunner.query(`CREATE TABLE "order_numbers" (
      "site_id" bigint NOT NULL,
      "last_number" integer NOT NULL,
      CONSTRAINT "order_numbers_pkey" PRIMARY KEY ("site_id"),
      CONSTRAINT "order_numbers_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);

    await queryRunner.query(`CREATE TABLE "order_fulfillment_secrets" (
      "site_id" bigint NOT NULL,
      "secret" text NOT NULL,
      "previous_secret" text,
      "previous_secret_expires_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "order_fulfillment_secrets_pkey" PRIMARY KEY ("site_id"),
      CONSTRAINT "order_fulfillment_secrets_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);

    await queryRunner.query(`CREATE TABLE "order_fulfillment_notifications" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "notification_id" text NOT NULL,
      "order_id" bigint NOT NULL,
      "outcome" jsonb,
      "received_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "order_fulfillment_notifications_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "order_fulfillment_notifications_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE,
      CONSTRAINT "order_fulfillment_notifications_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "order_fulfillment_notifications_site_id_notification_id_key" ON "order_fulfillment_notifications" ("site_id", "notification_id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "order_fulfillment_notifications"');
    await queryRunner.query('DROP TABLE "order_fulfillment_secrets"');
    await queryRunner.query('DROP TABLE "order_numbers"');
    await queryRunner.query('DROP TABLE "order_shipments"');
    await queryRunner.query('DROP TABLE "order_lines"');
    await queryRunner.query('DROP TABLE "orders"');
  }
}
