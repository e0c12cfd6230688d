import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sample things (docs/sample-things.md): the table, its indexes and its site key, under the names
 * the entity declares.
 */
export class SampleThings1795700000000 implements MigrationInterface {
  name = 'SampleThings1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "sample_things" (
        "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "site_id" bigint NOT NULL,
        "title" text NOT NULL,
        "slug" text COLLATE "C" NOT NULL,
        "body" text NOT NULL DEFAULT '',
        "status" text NOT NULL DEFAULT 'draft',
        "published_at" TIMESTAMP(3) WITH TIME ZONE,
        "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
        // @if !lifecycle
        CONSTRAINT "sample_things_status_check" CHECK ((status = ANY (ARRAY['draft'::text, 'published'::text]))),
        // @end
        // @if lifecycle
        CONSTRAINT "sample_things_status_check" CHECK ((status = ANY (ARRAY['draft'::text, 'published'::text, 'archived'::text]))),
        // @end
        CONSTRAINT "sample_things_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "sample_things_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "sample_things_site_id_slug_key" ON "sample_things" ("site_id", "slug")`);
    await queryRunner.query(
      `CREATE INDEX "sample_things_site_id_created_at_id_idx" ON "sample_things" ("site_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "sample_things_site_id_status_created_at_id_idx" ON "sample_things" ("site_id", "status", "created_at", "id")`,
    );
    // @if publishable
    // Publishable keys read the new group (PUBLISHABLE_PERMISSIONS): what existing ones show says so.
    await queryRunner.query(`
      UPDATE "api_keys" SET "permissions" = ARRAY(SELECT DISTINCT p COLLATE "C" FROM unnest("permissions" || '{sample-things:read}'::text[]) p ORDER BY 1)
        WHERE "kind" = 'publishable'`);
    // @end
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // @if publishable
    await queryRunner.query(
      `UPDATE "api_keys" SET "permissions" = array_remove("permissions", 'sample-things:read') WHERE "kind" = 'publishable'`,
    );
    // @end
    await queryRunner.query(`DROP TABLE "sample_things"`);
  }
}
