import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables behind the cached reads of a site (src/common/cache/site-read-cache.ts). */
const TABLES = ['content_items', 'products', 'product_variants', 'product_categories', 'media_items'];

/**
 * Instances cache content and catalog reads (docs/content.md). A change to a row of a table
 * behind those answers notifies `sitebase_site_data` with the row's site id at commit, from any
 * instance, job or operator's SQL, so every instance drops that site's entries at once.
 * PostgreSQL folds the same notification sent twice in one transaction into one.
 */
export class SiteDataNotifications1795700000000 implements MigrationInterface {
  name = 'SiteDataNotifications1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION sitebase_notify_site_data() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM pg_notify('sitebase_site_data', OLD.site_id::text);
        ELSE
          PERFORM pg_notify('sitebase_site_data', NEW.site_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    for (const table of TABLES)
      await queryRunner.query(`CREATE TRIGGER ${table}_notify_site_data AFTER INSERT OR UPDATE OR DELETE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION sitebase_notify_site_data()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) await queryRunner.query(`DROP TRIGGER ${table}_notify_site_data ON ${table}`);
    await queryRunner.query('DROP FUNCTION sitebase_notify_site_data()');
  }
}
