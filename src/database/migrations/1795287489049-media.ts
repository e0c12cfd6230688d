import { MigrationInterface, QueryRunner } from 'typeorm';

// Media library (docs/media.md): items (originals and their thumbnails), categories, tags.

export class Media1795287489049 implements MigrationInterface {
  name = 'Media1795287489049';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "media_items" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "site_id" bigint NOT NULL, "original_id" bigint, "storage_key" text NOT NULL, "file_name" text NOT NULL, "content_type" text NOT NULL, "filesize" bigint NOT NULL, "width" integer, "height" integer, "title" text NOT NULL DEFAULT '', "caption" text NOT NULL DEFAULT '', "description" text NOT NULL DEFAULT '', "alt_text" text NOT NULL DEFAULT '', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c23c721eba990b8d9c28c48592c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "media_items_storage_key_key" ON "media_items" ("storage_key") `);
    await queryRunner.query(`CREATE INDEX "media_items_original_id_idx" ON "media_items" ("original_id") `);
    await queryRunner.query(
      `CREATE INDEX "media_items_originals_idx" ON "media_items" ("site_id", "created_at", "id") WHERE original_id IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "media_items_site_id_created_at_id_idx" ON "media_items" ("site_id", "created_at", "id") `,
    );
    // ?q= searches title and file name with ILIKE '%…%'; a trigram index keeps that off a scan.
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(
      `CREATE INDEX "media_items_search_trgm_idx" ON "media_items" USING gin ((title || ' ' || file_name) gin_trgm_ops)`,
    );
    await queryRunner.query(
      `CREATE TABLE "media_categories" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "site_id" bigint NOT NULL, "name" text NOT NULL, "slug" text NOT NULL, "description" text NOT NULL DEFAULT '', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7eb8153544c81e8bca883685611" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "media_categories_site_id_id_idx" ON "media_categories" ("site_id", "id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "media_categories_site_id_slug_key" ON "media_categories" ("site_id", "slug") `,
    );
    await queryRunner.query(
      `CREATE TABLE "media_tags" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "site_id" bigint NOT NULL, "name" text NOT NULL, "slug" text NOT NULL, "description" text NOT NULL DEFAULT '', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_3e53592777fe933a0a7228294ec" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "media_tags_site_id_id_idx" ON "media_tags" ("site_id", "id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "media_tags_site_id_slug_key" ON "media_tags" ("site_id", "slug") `);
    await queryRunner.query(
      `CREATE TABLE "media_item_categories" ("media_id" bigint NOT NULL, "category_id" bigint NOT NULL, "site_id" bigint NOT NULL, CONSTRAINT "PK_fe5b1b189bec099b2c9be8e47a5" PRIMARY KEY ("media_id", "category_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "media_item_categories_category_id_idx" ON "media_item_categories" ("category_id", "media_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "media_item_tags" ("media_id" bigint NOT NULL, "tag_id" bigint NOT NULL, "site_id" bigint NOT NULL, CONSTRAINT "PK_f04a33f91c34c3e484774163140" PRIMARY KEY ("media_id", "tag_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "media_item_tags_tag_id_idx" ON "media_item_tags" ("tag_id", "media_id") `);
    await queryRunner.query(
      `ALTER TABLE "media_items" ADD CONSTRAINT "FK_42cca3d5d8a718ff223b69d4844" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_items" ADD CONSTRAINT "FK_584df38a8f470f4f06e276b13aa" FOREIGN KEY ("original_id") REFERENCES "media_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_categories" ADD CONSTRAINT "FK_0f76f13b848333ac04ea833fea4" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_tags" ADD CONSTRAINT "FK_eb599f7f590310c563e6ad381ef" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_item_categories" ADD CONSTRAINT "FK_0ded1b49629b5bdd2d213a426ec" FOREIGN KEY ("media_id") REFERENCES "media_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_item_categories" ADD CONSTRAINT "FK_878a60d18921cb12dec1da937fe" FOREIGN KEY ("category_id") REFERENCES "media_categories"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_item_categories" ADD CONSTRAINT "FK_8bf46fa84e0900c569d4fc09169" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_item_tags" ADD CONSTRAINT "FK_408d32a02db1c10c2638f165c58" FOREIGN KEY ("media_id") REFERENCES "media_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_item_tags" ADD CONSTRAINT "FK_3d5684e828b7797cc9b79513323" FOREIGN KEY ("tag_id") REFERENCES "media_tags"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_item_tags" ADD CONSTRAINT "FK_0cc90fb79136fa6241fac559502" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media_item_tags" DROP CONSTRAINT "FK_0cc90fb79136fa6241fac559502"`);
    await queryRunner.query(`ALTER TABLE "media_item_tags" DROP CONSTRAINT "FK_3d5684e828b7797cc9b79513323"`);
    await queryRunner.query(`ALTER TABLE "media_item_tags" DROP CONSTRAINT "FK_408d32a02db1c10c2638f165c58"`);
    await queryRunner.query(`ALTER TABLE "media_item_categories" DROP CONSTRAINT "FK_8bf46fa84e0900c569d4fc09169"`);
    await queryRunner.query(`ALTER TABLE "media_item_categories" DROP CONSTRAINT "FK_878a60d18921cb12dec1da937fe"`);
    await queryRunner.query(`ALTER TABLE "media_item_categories" DROP CONSTRAINT "FK_0ded1b49629b5bdd2d213a426ec"`);
    await queryRunner.query(`ALTER TABLE "media_tags" DROP CONSTRAINT "FK_eb599f7f590310c563e6ad381ef"`);
    await queryRunner.query(`ALTER TABLE "media_categories" DROP CONSTRAINT "FK_0f76f13b848333ac04ea833fea4"`);
    await queryRunner.query(`ALTER TABLE "media_items" DROP CONSTRAINT "FK_584df38a8f470f4f06e276b13aa"`);
    await queryRunner.query(`ALTER TABLE "media_items" DROP CONSTRAINT "FK_42cca3d5d8a718ff223b69d4844"`);
    await queryRunner.query(`DROP INDEX "public"."media_item_tags_tag_id_idx"`);
    await queryRunner.query(`DROP TABLE "media_item_tags"`);
    await queryRunner.query(`DROP INDEX "public"."media_item_categories_category_id_idx"`);
    await queryRunner.query(`DROP TABLE "media_item_categories"`);
    await queryRunner.query(`DROP INDEX "public"."media_tags_site_id_slug_key"`);
    await queryRunner.query(`DROP INDEX "public"."media_tags_site_id_id_idx"`);
    await queryRunner.query(`DROP TABLE "media_tags"`);
    await queryRunner.query(`DROP INDEX "public"."media_categories_site_id_slug_key"`);
    await queryRunner.query(`DROP INDEX "public"."media_categories_site_id_id_idx"`);
    await queryRunner.query(`DROP TABLE "media_categories"`);
    await queryRunner.query(`DROP INDEX "public"."media_items_search_trgm_idx"`);
    await queryRunner.query(`DROP INDEX "public"."media_items_site_id_created_at_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."media_items_originals_idx"`);
    await queryRunner.query(`DROP INDEX "public"."media_items_original_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."media_items_storage_key_key"`);
    await queryRunner.query(`DROP TABLE "media_items"`);
  }
}
