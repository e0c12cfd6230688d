import { MigrationInterface, QueryRunner } from 'typeorm';

/** Must equal CONTENT_SEARCH_EXPRESSION of content-item.entity.ts at the time of this migration. */
const SEARCH_EXPRESSION =
  "setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('simple'::regconfig, coalesce(excerpt, '')), 'B') || setweight(to_tsvector('simple'::regconfig, coalesce(content, '')), 'C')";

export class Content1795287510654 implements MigrationInterface {
  name = 'Content1795287510654';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // TypeORM reads a generated column's expression from typeorm_metadata when it diffs the
    // schema (migration:generate); without the row it would drop and re-add the column.
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "typeorm_metadata" ("type" character varying NOT NULL, "database" character varying, "schema" character varying, "table" character varying, "name" character varying, "value" text)`,
    );
    await queryRunner.query(
      `INSERT INTO "typeorm_metadata"("database", "schema", "table", "type", "name", "value") VALUES (current_database(), current_schema(), 'content_items', 'GENERATED_COLUMN', 'search', $1)`,
      [SEARCH_EXPRESSION],
    );
    await queryRunner.query(
      `CREATE TABLE "content_items" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "site_id" bigint NOT NULL, "type" text NOT NULL, "title" text NOT NULL, "slug" text COLLATE "C" NOT NULL, "content" text NOT NULL DEFAULT '', "format" text NOT NULL DEFAULT 'html', "excerpt" text NOT NULL DEFAULT '', "status" text NOT NULL DEFAULT 'draft', "publish_at" TIMESTAMP(3) WITH TIME ZONE, "published_at" TIMESTAMP(3) WITH TIME ZONE, "tags" text array NOT NULL DEFAULT '{}', "categories" text array NOT NULL DEFAULT '{}', "authors" jsonb NOT NULL DEFAULT '[]', "template" text NOT NULL DEFAULT '', "thumbnail" text NOT NULL DEFAULT '', "description" text NOT NULL DEFAULT '', "custom_fields" jsonb NOT NULL DEFAULT '{}', "attachment_ids" bigint array NOT NULL DEFAULT '{}', "version" integer NOT NULL DEFAULT '1', "search" tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('simple'::regconfig, coalesce(excerpt, '')), 'B') || setweight(to_tsvector('simple'::regconfig, coalesce(content, '')), 'C')) STORED, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "content_items_publish_at_check" CHECK ("status" <> 'scheduled' OR "publish_at" IS NOT NULL), CONSTRAINT "content_items_published_at_check" CHECK ("status" <> 'published' OR "published_at" IS NOT NULL), CONSTRAINT "content_items_status_check" CHECK ("status" IN ('draft', 'scheduled', 'published', 'archived')), CONSTRAINT "PK_9c6bf4f28851752cee186915e39" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "content_items_site_id_created_at_id_idx" ON "content_items" ("site_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "content_items_site_id_status_published_at_id_idx" ON "content_items" ("site_id", "status", "published_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "content_items_site_id_slug_key" ON "content_items" ("site_id", "slug") `,
    );
    // Full-text search and tag/category filters (GIN; the generator cannot declare these).
    await queryRunner.query(`CREATE INDEX "content_items_search_idx" ON "content_items" USING GIN ("search")`);
    await queryRunner.query(`CREATE INDEX "content_items_tags_idx" ON "content_items" USING GIN ("tags")`);
    await queryRunner.query(`CREATE INDEX "content_items_categories_idx" ON "content_items" USING GIN ("categories")`);
    await queryRunner.query(
      `CREATE TABLE "content_revisions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "site_id" bigint NOT NULL, "content_id" bigint NOT NULL, "number" integer NOT NULL, "action" text NOT NULL, "snapshot" jsonb NOT NULL, "actor_type" text NOT NULL, "actor_id" bigint, "restored_from" integer, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_750b063aa2aad282d6a5fd2db2a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "content_revisions_site_id_idx" ON "content_revisions" ("site_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "content_revisions_content_id_number_key" ON "content_revisions" ("content_id", "number") `,
    );
    await queryRunner.query(
      `CREATE TABLE "collections" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "site_id" bigint NOT NULL, "name" text NOT NULL, "slug" text COLLATE "C" NOT NULL, "description" text NOT NULL DEFAULT '', "starts_at" TIMESTAMP(3) WITH TIME ZONE, "ends_at" TIMESTAMP(3) WITH TIME ZONE, "pinned" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "collections_window_check" CHECK ("ends_at" IS NULL OR ("starts_at" IS NOT NULL AND "ends_at" > "starts_at")), CONSTRAINT "PK_21c00b1ebbd41ba1354242c5c4e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "collections_site_id_starts_at_id_idx" ON "collections" ("site_id", "starts_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "collections_site_id_pinned_key" ON "collections" ("site_id") WHERE pinned`,
    );
    await queryRunner.query(
      `CREATE INDEX "collections_site_id_created_at_id_idx" ON "collections" ("site_id", "created_at", "id") `,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "collections_site_id_slug_key" ON "collections" ("site_id", "slug") `);
    await queryRunner.query(
      `CREATE TABLE "collection_items" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "site_id" bigint NOT NULL, "collection_id" bigint NOT NULL, "content_id" bigint NOT NULL, "position" integer NOT NULL, "added_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5f299da96958a920ab58871ea57" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "collection_items_content_id_idx" ON "collection_items" ("content_id") `);
    await queryRunner.query(
      `CREATE INDEX "collection_items_collection_id_position_id_idx" ON "collection_items" ("collection_id", "position", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "collection_items_collection_id_content_id_key" ON "collection_items" ("collection_id", "content_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "content_items" ADD CONSTRAINT "FK_cc7d457e7f96e51bf74b11e9e5a" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "content_revisions" ADD CONSTRAINT "FK_e12c9547d9e7ca6c687cc85c3ca" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "content_revisions" ADD CONSTRAINT "FK_8004fe6945a59aa270f6c7278ed" FOREIGN KEY ("content_id") REFERENCES "content_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "collections" ADD CONSTRAINT "FK_d4d9b0d1901b14e81c1c5028256" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "collection_items" ADD CONSTRAINT "FK_702b1964320265b482f56a80f35" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "collection_items" ADD CONSTRAINT "FK_21bf61f8ce7e69b7bcaee625676" FOREIGN KEY ("collection_id") REFERENCES "collections"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "collection_items" ADD CONSTRAINT "FK_4742e1041e48a18d456e7e93558" FOREIGN KEY ("content_id") REFERENCES "content_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "collection_items" DROP CONSTRAINT "FK_4742e1041e48a18d456e7e93558"`);
    await queryRunner.query(`ALTER TABLE "collection_items" DROP CONSTRAINT "FK_21bf61f8ce7e69b7bcaee625676"`);
    await queryRunner.query(`ALTER TABLE "collection_items" DROP CONSTRAINT "FK_702b1964320265b482f56a80f35"`);
    await queryRunner.query(`ALTER TABLE "collections" DROP CONSTRAINT "FK_d4d9b0d1901b14e81c1c5028256"`);
    await queryRunner.query(`ALTER TABLE "content_revisions" DROP CONSTRAINT "FK_8004fe6945a59aa270f6c7278ed"`);
    await queryRunner.query(`ALTER TABLE "content_revisions" DROP CONSTRAINT "FK_e12c9547d9e7ca6c687cc85c3ca"`);
    await queryRunner.query(`ALTER TABLE "content_items" DROP CONSTRAINT "FK_cc7d457e7f96e51bf74b11e9e5a"`);
    await queryRunner.query(`DROP INDEX "public"."collection_items_collection_id_content_id_key"`);
    await queryRunner.query(`DROP INDEX "public"."collection_items_collection_id_position_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."collection_items_content_id_idx"`);
    await queryRunner.query(`DROP TABLE "collection_items"`);
    await queryRunner.query(`DROP INDEX "public"."collections_site_id_slug_key"`);
    await queryRunner.query(`DROP INDEX "public"."collections_site_id_created_at_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."collections_site_id_pinned_key"`);
    await queryRunner.query(`DROP INDEX "public"."collections_site_id_starts_at_id_idx"`);
    await queryRunner.query(`DROP TABLE "collections"`);
    await queryRunner.query(`DROP INDEX "public"."content_revisions_content_id_number_key"`);
    await queryRunner.query(`DROP INDEX "public"."content_revisions_site_id_idx"`);
    await queryRunner.query(`DROP TABLE "content_revisions"`);
    await queryRunner.query(`DROP INDEX "public"."content_items_site_id_slug_key"`);
    await queryRunner.query(`DROP INDEX "public"."content_items_site_id_status_published_at_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."content_items_site_id_created_at_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."content_items_categories_idx"`);
    await queryRunner.query(`DROP INDEX "public"."content_items_tags_idx"`);
    await queryRunner.query(`DROP INDEX "public"."content_items_search_idx"`);
    await queryRunner.query(`DROP TABLE "content_items"`);
    await queryRunner.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'content_items' AND "name" = 'search'`,
    );
  }
}
