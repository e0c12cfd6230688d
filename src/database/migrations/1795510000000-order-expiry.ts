import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unpaid orders hold their stock until `expires_at` (docs/orders.md, "Reservations"). The partial
 * index holds only the open unpaid orders that expire: what the expiry sweep reads every minute.
 */
export class OrderExpiry1795510000000 implements MigrationInterface {
  name = 'OrderExpiry1795510000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ADD "expires_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "orders_expires_at_idx" ON "orders" ("expires_at") WHERE "expires_at" IS NOT NULL AND "payment_status" = 'pending' AND "fulfillment_status" IN ('unfulfilled', 'partially_fulfilled')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "orders_expires_at_idx"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "expires_at"`);
  }
}
