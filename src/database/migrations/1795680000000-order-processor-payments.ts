import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders paid through Stripe (docs/payments.md, "Orders"): Stripe's `charge.refunded` names the
 * PaymentIntent, not the order, so a site's order is found by its processor payment id.
 */
export class OrderProcessorPayments1795680000000 implements MigrationInterface {
  name = 'OrderProcessorPayments1795680000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX "orders_site_id_processor_payment_id_idx" ON "orders" ("site_id", "processor_payment_id")
      WHERE "processor_payment_id" IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "orders_site_id_processor_payment_id_idx"`);
  }
}
