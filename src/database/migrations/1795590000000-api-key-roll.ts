import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rolling a key (docs/foundation.md, "Rolling"): the secret it replaced keeps working until
 * `previous_expires_at`, with its own hash (unique, indexed only where there is one, so
 * verifying finds a key by either hash in one statement), display parts and last use. The
 * change trigger also fires when the previous secret changes, so every instance drops its
 * cached keys then too.
 */
export class ApiKeyRoll1795590000000 implements MigrationInterface {
  name = 'ApiKeyRoll1795590000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD "previous_key_hash" text, ADD "previous_prefix" text, ADD "previous_last4" text,
        ADD "previous_expires_at" TIMESTAMP WITH TIME ZONE, ADD "previous_last_used_at" TIMESTAMP WITH TIME ZONE,
        ADD CONSTRAINT "api_keys_previous_check" CHECK (("previous_key_hash" IS NULL) = ("previous_expires_at" IS NULL)
          AND ("previous_key_hash" IS NULL) = ("previous_prefix" IS NULL)
          AND ("previous_key_hash" IS NULL) = ("previous_last4" IS NULL))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "api_keys_previous_key_hash_key" ON "api_keys" ("previous_key_hash") WHERE previous_key_hash IS NOT NULL`,
    );
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    await queryRunner.query(`CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR DELETE OR UPDATE OF key_hash, revoked_at, expires_at, site_ids, account_id, permissions, kind,
        allowed_origins, rate_limit_per_minute, previous_key_hash, previous_expires_at ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_credentials')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    // Back to the trigger of PublishableKeys1795580000000.
    await queryRunner.query(`CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR DELETE OR UPDATE OF key_hash, revoked_at, expires_at, site_ids, account_id, permissions, kind,
        allowed_origins, rate_limit_per_minute ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_credentials')`);
    await queryRunner.query(`DROP INDEX "public"."api_keys_previous_key_hash_key"`);
    await queryRunner.query(
      `ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_previous_check", DROP COLUMN "previous_last_used_at",
        DROP COLUMN "previous_expires_at", DROP COLUMN "previous_last4", DROP COLUMN "previous_prefix",
        DROP COLUMN "previous_key_hash"`,
    );
  }
}
