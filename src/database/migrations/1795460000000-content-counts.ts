import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each site's number of content items, kept by statement-level triggers (docs/content.md,
 * "Pages by offset"): the v1 pages list answers the interface's `total` with every page, and
 * `count(*)` over a site's items cost a scan of its whole index on every request (134 ms a page
 * at 1,000,000 items). A statement adds or takes away its rows' count once per site, in site
 * order; a site's deletion removes its row with it.
 */
export class ContentCounts1795460000000 implements MigrationInterface {
  name = 'ContentCounts1795460000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "content_counts" ("site_id" bigint NOT NULL, "items" bigint NOT NULL DEFAULT 0,
         CONSTRAINT "content_counts_pkey" PRIMARY KEY ("site_id"),
         CONSTRAINT "content_counts_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `CREATE FUNCTION content_counts_ins() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO content_counts AS c (site_id, items)
           SELECT site_id, count(*) FROM new_rows GROUP BY site_id ORDER BY site_id
           ON CONFLICT (site_id) DO UPDATE SET items = c.items + EXCLUDED.items;
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE FUNCTION content_counts_del() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         UPDATE content_counts c SET items = c.items - d.n
           FROM (SELECT site_id, count(*) AS n FROM old_rows GROUP BY site_id) d WHERE c.site_id = d.site_id;
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER content_counts_ins AFTER INSERT ON content_items
         REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION content_counts_ins()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER content_counts_del AFTER DELETE ON content_items
         REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION content_counts_del()`,
    );
    // The items already there (a site's row may be written by a trigger only after this).
    await queryRunner.query(`LOCK TABLE content_items IN SHARE MODE`);
    await queryRunner.query(
      `INSERT INTO content_counts (site_id, items) SELECT site_id, count(*) FROM content_items GROUP BY site_id`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER content_counts_del ON content_items`);
    await queryRunner.query(`DROP TRIGGER content_counts_ins ON content_items`);
    await queryRunner.query(`DROP FUNCTION content_counts_del()`);
    await queryRunner.query(`DROP FUNCTION content_counts_ins()`);
    await queryRunner.query(`DROP TABLE "content_counts"`);
  }
}
