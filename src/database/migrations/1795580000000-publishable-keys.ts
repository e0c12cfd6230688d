import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Publishable keys (docs/foundation.md, "Publishable keys"): a key's kind, the browser origins it
 * may be used from (NULL: any) and its own per-minute limit (NULL: the server's default). The
 * change trigger now also covers these and `permissions`, so a change made in SQL reaches every
 * instance's key cache.
 */
export class PublishableKeys1795580000000 implements MigrationInterface {
  name = 'PublishableKeys1795580000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "api_keys"
         ADD "kind" text NOT NULL DEFAULT 'secret' CONSTRAINT "api_keys_kind_check" CHECK ("kind" IN ('secret', 'publishable')),
         ADD "allowed_origins" text array,
         ADD "rate_limit_per_minute" integer CONSTRAINT "api_keys_rate_limit_check" CHECK ("rate_limit_per_minute" > 0)`,
    );
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    await queryRunner.query(`CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR DELETE OR UPDATE OF key_hash, revoked_at, expires_at, site_ids, account_id, permissions, kind,
        allowed_origins, rate_limit_per_minute ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_credentials')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    await queryRunner.query(`CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR DELETE OR UPDATE OF key_hash, revoked_at, expires_at, site_ids, account_id ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_credentials')`);
    await queryRunner.query(
      `ALTER TABLE "api_keys" DROP COLUMN "rate_limit_per_minute", DROP COLUMN "allowed_origins", DROP COLUMN "kind"`,
    );
  }
}
