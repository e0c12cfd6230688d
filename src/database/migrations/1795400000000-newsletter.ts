import { MigrationInterface, QueryRunner } from 'typeorm';

/** The newsletter audience (docs/newsletter.md): lists, subscriptions, memberships, suppressions, imports. */
export class Newsletter1795400000000 implements MigrationInterface {
  name = 'Newsletter1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "newsletter_lists" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "name" text NOT NULL,
      "description" text NOT NULL DEFAULT '',
      "double_opt_in" boolean NOT NULL DEFAULT true,
      "visibility" text NOT NULL DEFAULT 'public',
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_lists_visibility_check" CHECK ("visibility" IN ('public', 'private')),
      CONSTRAINT "newsletter_lists_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_lists_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "newsletter_lists_site_id_id_idx" ON "newsletter_lists" ("site_id", "id")`);

    await queryRunner.query(`CREATE TABLE "newsletter_subscriptions" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "email" text NOT NULL,
      "name" text NOT NULL DEFAULT '',
      "attributes" jsonb NOT NULL DEFAULT '{}',
      "deliverability" text NOT NULL DEFAULT 'deliverable',
      "source" text NOT NULL,
      "consent_at" TIMESTAMP(3) WITH TIME ZONE,
      "consent_ip" inet,
      "consent_user_agent" text,
      "consent_list_ids" bigint array,
      "consent_wording" text,
      "confirm_nonce" text,
      "manage_nonce" text NOT NULL,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_subscriptions_deliverability_check"
        CHECK ("deliverability" IN ('deliverable', 'bounced', 'complained', 'suppressed')),
      CONSTRAINT "newsletter_subscriptions_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_subscriptions_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "newsletter_subscriptions_site_id_email_key" ON "newsletter_subscriptions" ("site_id", "email")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_subscriptions_site_id_id_idx" ON "newsletter_subscriptions" ("site_id", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_subscriptions_site_id_deliverability_id_idx" ON "newsletter_subscriptions" ("site_id", "deliverability", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_subscriptions_attributes_idx" ON "newsletter_subscriptions" USING gin ("attributes" jsonb_path_ops)`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_memberships" (
      "subscription_id" bigint NOT NULL,
      "list_id" bigint NOT NULL,
      "site_id" bigint NOT NULL,
      "status" text NOT NULL,
      "subscribed_at" TIMESTAMP(3) WITH TIME ZONE,
      "unsubscribed_at" TIMESTAMP(3) WITH TIME ZONE,
      "reason" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_memberships_status_check" CHECK ("status" IN ('pending', 'active', 'unsubscribed')),
      CONSTRAINT "newsletter_memberships_pkey" PRIMARY KEY ("subscription_id", "list_id"),
      CONSTRAINT "newsletter_memberships_subscription_id_fkey" FOREIGN KEY ("subscription_id")
        REFERENCES "newsletter_subscriptions"("id") ON DELETE CASCADE,
      CONSTRAINT "newsletter_memberships_list_id_fkey" FOREIGN KEY ("list_id")
        REFERENCES "newsletter_lists"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "newsletter_memberships_list_id_status_subscription_id_idx" ON "newsletter_memberships" ("list_id", "status", "subscription_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_memberships_list_id_subscription_id_idx" ON "newsletter_memberships" ("list_id", "subscription_id")`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_suppressions" (
      "site_id" bigint NOT NULL,
      "email_hash" text NOT NULL,
      "reason" text NOT NULL,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_suppressions_pkey" PRIMARY KEY ("site_id", "email_hash"),
      CONSTRAINT "newsletter_suppressions_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);

    await queryRunner.query(`CREATE TABLE "newsletter_signing_keys" (
      "site_id" bigint NOT NULL,
      "secret" bytea NOT NULL,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_signing_keys_pkey" PRIMARY KEY ("site_id"),
      CONSTRAINT "newsletter_signing_keys_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);

    await queryRunner.query(`CREATE TABLE "newsletter_imports" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "status" text NOT NULL,
      "mode" text NOT NULL,
      "list_ids" bigint array NOT NULL DEFAULT '{}',
      "consent" boolean NOT NULL,
      "overwrite" boolean NOT NULL,
      "rows_read" integer NOT NULL DEFAULT 0,
      "rows_staged" integer NOT NULL DEFAULT 0,
      "rows_done" integer NOT NULL DEFAULT 0,
      "created" integer NOT NULL DEFAULT 0,
      "updated" integer NOT NULL DEFAULT 0,
      "skipped" integer NOT NULL DEFAULT 0,
      "invalid_count" integer NOT NULL DEFAULT 0,
      "invalid" jsonb NOT NULL DEFAULT '[]',
      "error" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "finished_at" TIMESTAMP(3) WITH TIME ZONE,
      CONSTRAINT "newsletter_imports_status_check" CHECK ("status" IN ('queued', 'running', 'completed', 'failed')),
      CONSTRAINT "newsletter_imports_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_imports_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "newsletter_imports_site_id_id_idx" ON "newsletter_imports" ("site_id", "id")`,
    );

    // Staging only: written once and read once per import, so not worth WAL.
    await queryRunner.query(`CREATE UNLOGGED TABLE "newsletter_import_rows" (
      "import_id" bigint NOT NULL,
      "row_no" integer NOT NULL,
      "email" text NOT NULL,
      "email_hash" text NOT NULL,
      "name" text,
      "attributes" jsonb,
      CONSTRAINT "newsletter_import_rows_pkey" PRIMARY KEY ("import_id", "row_no"),
      CONSTRAINT "newsletter_import_rows_import_id_fkey" FOREIGN KEY ("import_id")
        REFERENCES "newsletter_imports"("id") ON DELETE CASCADE
    )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'newsletter_import_rows',
      'newsletter_imports',
      'newsletter_signing_keys',
      'newsletter_suppressions',
      'newsletter_memberships',
      'newsletter_subscriptions',
      'newsletter_lists',
    ])
      await queryRunner.query(`DROP TABLE "${table}"`);
  }
}
