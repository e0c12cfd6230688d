import { MigrationInterface, QueryRunner } from 'typeorm';

/** Product categories, products and their variants (docs/catalog.md). */
export class Catalog1795330000000 implements MigrationInterface {
  name = 'Catalog1795330000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "product_categories" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "name" text NOT NULL,
      "slug" text COLLATE "C" NOT NULL,
      "slug_prefix" text NOT NULL DEFAULT '',
      "description" text NOT NULL DEFAULT '',
      "position" integer NOT NULL DEFAULT 0,
      "attachment_ids" bigint array NOT NULL DEFAULT '{}',
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "product_categories_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "product_categories_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "product_categories_site_id_slug_key" ON "product_categories" ("site_id", "slug")`,
    );
    await queryRunner.query(
      `CREATE INDEX "product_categories_site_id_position_id_idx" ON "product_categories" ("site_id", "position", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "product_categories_attachment_ids_idx" ON "product_categories" USING gin ("attachment_ids")`,
    );

    await queryRunner.query(`CREATE TABLE "products" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "category_id" bigint,
      "name" text NOT NULL,
      "slug" text COLLATE "C" NOT NULL,
      "slug_prefix" text NOT NULL DEFAULT '',
      "description" text NOT NULL DEFAULT '',
      "status" text NOT NULL DEFAULT 'published',
      "unit_amount" bigint NOT NULL,
      "currency" text NOT NULL,
      "position" integer NOT NULL DEFAULT 0,
      "quantity_available" integer,
      "tax_code" text,
      "tax_behavior" text NOT NULL DEFAULT 'unspecified',
      "recurring_interval" text,
      "recurring_interval_count" integer,
      "option1" text,
      "option2" text,
      "option3" text,
      "processor_description" text NOT NULL DEFAULT '',
      "processor_product_id_live" text,
      "processor_product_id_test" text,
      "attachment_ids" bigint array NOT NULL DEFAULT '{}',
      "version" integer NOT NULL DEFAULT 1,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "products_status_check" CHECK ("status" IN ('draft', 'published', 'archived')),
      CONSTRAINT "products_tax_behavior_check" CHECK ("tax_behavior" IN ('exclusive', 'inclusive', 'unspecified')),
      CONSTRAINT "products_unit_amount_check" CHECK ("unit_amount" >= 0),
      CONSTRAINT "products_quantity_available_check" CHECK ("quantity_available" >= 0),
      CONSTRAINT "products_recurring_check" CHECK (
        ("recurring_interval" IS NULL AND "recurring_interval_count" IS NULL) OR
        ("recurring_interval" IN ('day', 'week', 'month', 'year') AND "recurring_interval_count" >= 1)),
      CONSTRAINT "products_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "products_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE,
      CONSTRAINT "products_category_id_fkey" FOREIGN KEY ("category_id")
        REFERENCES "product_categories"("id") ON DELETE SET NULL
    )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "products_site_id_slug_key" ON "products" ("site_id", "slug")`);
    await queryRunner.query(
      `CREATE INDEX "products_site_id_position_id_idx" ON "products" ("site_id", "position", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "products_site_id_status_position_id_idx" ON "products" ("site_id", "status", "position", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "products_category_id_position_id_idx" ON "products" ("category_id", "position", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "products_search_idx" ON "products" USING gin ((setweight(to_tsvector('simple'::regconfig, name), 'A') || setweight(to_tsvector('simple'::regconfig, description), 'B')))`,
    );
    await queryRunner.query(`CREATE INDEX "products_attachment_ids_idx" ON "products" USING gin ("attachment_ids")`);

    await queryRunner.query(`CREATE TABLE "product_variants" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "product_id" bigint NOT NULL,
      "option1_value" text,
      "option2_value" text,
      "option3_value" text,
      "unit_amount" bigint,
      "quantity_available" integer,
      "sku" text,
      "position" integer NOT NULL DEFAULT 0,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "product_variants_unit_amount_check" CHECK ("unit_amount" >= 0),
      CONSTRAINT "product_variants_quantity_available_check" CHECK ("quantity_available" >= 0),
      CONSTRAINT "product_variants_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "product_variants_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "product_variants_product_id_position_id_idx" ON "product_variants" ("product_id", "position", "id")`,
    );
    // One variant per combination; an absent option value counts as a value (COALESCE, not NULLS NOT DISTINCT: PostgreSQL 14 too).
    await queryRunner.query(
      `CREATE UNIQUE INDEX "product_variants_options_key" ON "product_variants" ("product_id", COALESCE("option1_value", ''), COALESCE("option2_value", ''), COALESCE("option3_value", ''))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "product_variants_site_id_sku_key" ON "product_variants" ("site_id", "sku") WHERE sku IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "product_variants"');
    await queryRunner.query('DROP TABLE "products"');
    await queryRunner.query('DROP TABLE "product_categories"');
  }
}
