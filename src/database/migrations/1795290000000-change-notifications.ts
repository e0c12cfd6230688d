import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Instances cache verified API keys and resolved sites (docs/foundation.md). These triggers
 * announce every change that could make such an entry wrong, from any instance or from an
 * operator's SQL, with a NOTIFY delivered at commit (src/database/change-notifications.ts).
 */
export class ChangeNotifications1795290000000 implements MigrationInterface {
  name = 'ChangeNotifications1795290000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION sitebase_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify(TG_ARGV[0], TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR DELETE OR UPDATE OF key_hash, revoked_at, expires_at, site_ids, account_id ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_credentials')`);
    await queryRunner.query(`CREATE TRIGGER accounts_notify_change
      AFTER DELETE OR UPDATE OF status ON accounts
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_credentials')`);
    await queryRunner.query(`CREATE TRIGGER sites_notify_change
      AFTER DELETE OR UPDATE OF name, account_id ON sites
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_sites')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER sites_notify_change ON sites');
    await queryRunner.query('DROP TRIGGER accounts_notify_change ON accounts');
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    await queryRunner.query('DROP FUNCTION sitebase_notify_change()');
  }
}
