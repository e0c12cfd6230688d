import { MigrationInterface, QueryRunner } from 'typeorm';

/** Site users, their sessions, one-time codes and profile entries (docs/users.md). */
export class Users1795360000000 implements MigrationInterface {
  name = 'Users1795360000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "site_users" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "email" text NOT NULL,
      "name" text NOT NULL DEFAULT '',
      "status" text NOT NULL DEFAULT 'active',
      "metadata" jsonb NOT NULL DEFAULT '{}',
      "email_verified_at" TIMESTAMP(3) WITH TIME ZONE,
      "last_sign_in_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "site_users_status_check" CHECK ("status" IN ('active', 'disabled')),
      CONSTRAINT "site_users_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "site_users_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "site_users_site_id_email_key" ON "site_users" ("site_id", "email")`);
    await queryRunner.query(
      `CREATE INDEX "site_users_site_id_created_at_id_idx" ON "site_users" ("site_id", "created_at", "id")`,
    );

    await queryRunner.query(`CREATE TABLE "user_sessions" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "user_id" bigint NOT NULL,
      "token_hash" text NOT NULL,
      "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "revoked_at" TIMESTAMP(3) WITH TIME ZONE,
      "ip" text,
      "user_agent" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "user_sessions_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "user_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "site_users"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "user_sessions_token_hash_key" ON "user_sessions" ("token_hash")`);
    await queryRunner.query(`CREATE INDEX "user_sessions_user_id_idx" ON "user_sessions" ("user_id")`);

    await queryRunner.query(`CREATE TABLE "user_otps" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "email" text NOT NULL,
      "purpose" text NOT NULL,
      "user_id" bigint,
      "salt" text NOT NULL,
      "code_hash" text NOT NULL,
      "attempts" integer NOT NULL DEFAULT 0,
      "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "consumed_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "user_otps_purpose_check" CHECK ("purpose" IN ('sign_in', 'email_change')),
      CONSTRAINT "user_otps_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "user_otps_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "user_otps_site_id_email_purpose_id_idx" ON "user_otps" ("site_id", "email", "purpose", "id")`,
    );

    await queryRunner.query(`CREATE TABLE "user_profile_entries" (
      "user_id" bigint NOT NULL,
      "key" text COLLATE "C" NOT NULL,
      "site_id" bigint NOT NULL,
      "value" jsonb,
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "user_profile_entries_pkey" PRIMARY KEY ("user_id", "key"),
      CONSTRAINT "user_profile_entries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "site_users"("id") ON DELETE CASCADE
    )`);

    // Instances cache verified sessions with their user (docs/users.md): any change that could
    // make such an entry wrong is announced at commit, like API keys (1795290000000).
    await queryRunner.query(`CREATE TRIGGER user_sessions_notify_change
      AFTER DELETE OR UPDATE OF revoked_at, expires_at ON user_sessions
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_sessions')`);
    await queryRunner.query(`CREATE TRIGGER site_users_notify_change
      AFTER DELETE OR UPDATE ON site_users
      FOR EACH STATEMENT EXECUTE FUNCTION sitebase_notify_change('sitebase_sessions')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER site_users_notify_change ON site_users');
    await queryRunner.query('DROP TRIGGER user_sessions_notify_change ON user_sessions');
    await queryRunner.query('DROP TABLE "user_profile_entries"');
    await queryRunner.query('DROP TABLE "user_otps"');
    await queryRunner.query('DROP TABLE "user_sessions"');
    await queryRunner.query('DROP TABLE "site_users"');
  }
}
