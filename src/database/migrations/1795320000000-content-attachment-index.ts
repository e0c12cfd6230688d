import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A GIN index on content_items.attachment_ids: "which items of the site attach media X" (the
 * `media.deleted` subscriber, docs/content.md) is then an index lookup instead of a scan of the
 * site's rows (measured on 5 sites of 100,000 items: 0.04 ms instead of 60–150 ms). Media ids
 * are unique across sites, so the array alone is selective; `site_id` is only a filter.
 * Queries must use `attachment_ids && ARRAY[...]` (or `@>`): `x = ANY(attachment_ids)` cannot
 * use it.
 *
 * Not CONCURRENTLY: migrations run under a session advisory lock (database.module.ts), and a
 * concurrent build waits for every open snapshot of the database, including a second instance
 * waiting for that lock: neither would move. A plain build blocks writes to content_items for
 * its duration (about half a second for 500,000 rows here).
 */
export class ContentAttachmentIndex1795320000000 implements MigrationInterface {
  name = 'ContentAttachmentIndex1795320000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "content_items_attachment_ids_idx" ON "content_items" USING GIN ("attachment_ids")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."content_items_attachment_ids_idx"`);
  }
}
