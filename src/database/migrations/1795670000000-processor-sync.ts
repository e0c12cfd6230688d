import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog sync to Stripe (docs/payments.md, "Catalog sync"): each product and each variant is a
 * Stripe Product with one active Price per mode, so variants get their processor product ids too,
 * and both keep the id of their current Price (a changed price makes a new one). A product keeps
 * the state of its last sync (`processor_sync`: status, error, when, and a digest of what was
 * synced); null on a site that was never connected.
 */
export class ProcessorSync1795670000000 implements MigrationInterface {
  name = 'ProcessorSync1795670000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "products"
        ADD "processor_price_id_live" text,
        ADD "processor_price_id_test" text,
        ADD "processor_sync" jsonb`);
    await queryRunner.query(`
      ALTER TABLE "product_variants"
        ADD "processor_product_id_live" text,
        ADD "processor_product_id_test" text,
        ADD "processor_price_id_live" text,
        ADD "processor_price_id_test" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "product_variants"
        DROP COLUMN "processor_price_id_test",
        DROP COLUMN "processor_price_id_live",
        DROP COLUMN "processor_product_id_test",
        DROP COLUMN "processor_product_id_live"`);
    await queryRunner.query(`
      ALTER TABLE "products"
        DROP COLUMN "processor_sync",
        DROP COLUMN "processor_price_id_test",
        DROP COLUMN "processor_price_id_live"`);
  }
}
