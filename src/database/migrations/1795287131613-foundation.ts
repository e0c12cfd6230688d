import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1795287131613 implements MigrationInterface {
  name = 'Foundation1795287131613';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "outbox_events" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "account_id" bigint NOT NULL, "site_id" bigint, "name" text NOT NULL, "payload" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "dispatched_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_6689a16c00d09b8089f6237f1d2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "outbox_events_site_id_id_idx" ON "outbox_events" ("site_id", "id") `);
    await queryRunner.query(
      `CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" ("id") WHERE dispatched_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "scope" text NOT NULL, "key" text NOT NULL, "method" text NOT NULL, "path" text NOT NULL, "request_hash" text NOT NULL, "state" text NOT NULL DEFAULT 'processing', "response_status" integer, "response_body" jsonb, "response_headers" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_8ad20779ad0411107a56e53d0f6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys" ("created_at") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "idempotency_keys_scope_key_key" ON "idempotency_keys" ("scope", "key") `,
    );
    await queryRunner.query(
      `CREATE TABLE "accounts" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "name" text NOT NULL, "status" text NOT NULL DEFAULT 'active', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5a7a02c20412299d198e097a8fe" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "account_id" bigint NOT NULL, "name" text NOT NULL, "prefix" text NOT NULL, "last4" text NOT NULL, "key_hash" text NOT NULL, "site_ids" bigint array, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" ("key_hash") `);
    await queryRunner.query(`CREATE INDEX "api_keys_account_id_id_idx" ON "api_keys" ("account_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "sites" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "account_id" bigint NOT NULL, "name" text NOT NULL, "title" text NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_4f5eccb1dfde10c9170502595a7" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "sites_name_key" ON "sites" ("name") `);
    await queryRunner.query(`CREATE INDEX "sites_account_id_id_idx" ON "sites" ("account_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "account_deletions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "account_id" bigint NOT NULL, "status" text NOT NULL, "requested_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "purge_after" TIMESTAMP WITH TIME ZONE NOT NULL, "canceled_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "requested_by_key_id" bigint, "summary" jsonb, CONSTRAINT "PK_4d5b2aea48b5d5777b3421ec05c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "account_deletions_account_id_id_idx" ON "account_deletions" ("account_id", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "FK_decaf331589778e33441b2a8d9e" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sites" ADD CONSTRAINT "FK_fec9c95d43fce779c0fd0ea7b87" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Rate-limit windows (PgThrottlerStorage): shared by every instance, not worth WAL or backups.
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "rate_limits" ("key" text PRIMARY KEY, "hits" integer NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "blocked_until" TIMESTAMP WITH TIME ZONE)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "rate_limits"`);
    await queryRunner.query(`ALTER TABLE "sites" DROP CONSTRAINT "FK_fec9c95d43fce779c0fd0ea7b87"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "FK_decaf331589778e33441b2a8d9e"`);
    await queryRunner.query(`DROP INDEX "public"."account_deletions_account_id_id_idx"`);
    await queryRunner.query(`DROP TABLE "account_deletions"`);
    await queryRunner.query(`DROP INDEX "public"."sites_account_id_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."sites_name_key"`);
    await queryRunner.query(`DROP TABLE "sites"`);
    await queryRunner.query(`DROP INDEX "public"."api_keys_account_id_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."api_keys_key_hash_key"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
    await queryRunner.query(`DROP TABLE "accounts"`);
    await queryRunner.query(`DROP INDEX "public"."idempotency_keys_scope_key_key"`);
    await queryRunner.query(`DROP INDEX "public"."idempotency_keys_created_at_idx"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
    await queryRunner.query(`DROP INDEX "public"."outbox_events_pending_idx"`);
    await queryRunner.query(`DROP INDEX "public"."outbox_events_site_id_id_idx"`);
    await queryRunner.query(`DROP TABLE "outbox_events"`);
  }
}
