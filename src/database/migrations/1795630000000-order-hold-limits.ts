import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A site user's holds (docs/orders.md, "Reservations"): before a session order takes stock, the
 * units the user holds in unpaid orders and the holds of theirs that expired within the site's
 * cool-down are read under their lock. The partial index holds only a user's unpaid orders that
 * hold stock or held it until their expiry (an order canceled by its expiry keeps `expires_at`);
 * paid orders and a site's cancels stay out of it.
 */
export class OrderHoldLimits1795630000000 implements MigrationInterface {
  name = 'OrderHoldLimits1795630000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "orders_site_id_user_id_expires_at_idx" ON "orders" ("site_id", "user_id", "expires_at") WHERE "user_id" IS NOT NULL AND "payment_status" = 'pending' AND ("fulfillment_status" IN ('unfulfilled', 'partially_fulfilled') OR "expires_at" IS NOT NULL)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "orders_site_id_user_id_expires_at_idx"`);
  }
}
