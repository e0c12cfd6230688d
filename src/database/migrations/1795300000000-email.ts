import { MigrationInterface, QueryRunner } from 'typeorm';

/** Site settings (sender, base URL), email templates and the record of every message (docs/email.md). */
export class Email1795300000000 implements MigrationInterface {
  name = 'Email1795300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sites" ADD "settings" jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`CREATE TABLE "email_templates" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "type" text NOT NULL,
      "name" text NOT NULL,
      "subject" text NOT NULL,
      "html" text NOT NULL,
      "text" text,
      "status" text NOT NULL DEFAULT 'draft',
      "version" integer NOT NULL DEFAULT 1,
      "published_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "email_templates_status_check" CHECK ("status" IN ('draft', 'published')),
      CONSTRAINT "email_templates_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "email_templates_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "email_templates_site_id_id_idx" ON "email_templates" ("site_id", "id")`);
    await queryRunner.query(
      `CREATE INDEX "email_templates_site_id_type_id_idx" ON "email_templates" ("site_id", "type", "id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "email_templates_site_id_type_published_key" ON "email_templates" ("site_id", "type") WHERE status = 'published'`,
    );
    await queryRunner.query(`CREATE TABLE "email_messages" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "batch_id" uuid NOT NULL,
      "recipient" text NOT NULL,
      "recipient_kind" text NOT NULL,
      "from_header" text NOT NULL,
      "reply_to" text,
      "to_header" text NOT NULL,
      "cc_header" text,
      "subject" text NOT NULL,
      "html" text NOT NULL,
      "text" text NOT NULL,
      "template_id" bigint,
      "template_type" text,
      "tags" text[] NOT NULL DEFAULT '{}',
      "status" text NOT NULL DEFAULT 'queued',
      "attempts" integer NOT NULL DEFAULT 0,
      "claimed_at" TIMESTAMP(3) WITH TIME ZONE,
      "smtp_message_id" text,
      "smtp_response" text,
      "error" text,
      "sent_at" TIMESTAMP(3) WITH TIME ZONE,
      "failed_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "email_messages_status_check" CHECK ("status" IN ('queued', 'sending', 'sent', 'failed')),
      CONSTRAINT "email_messages_recipient_kind_check" CHECK ("recipient_kind" IN ('to', 'cc', 'bcc')),
      CONSTRAINT "email_messages_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "email_messages_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "email_messages_site_id_id_idx" ON "email_messages" ("site_id", "id")`);
    await queryRunner.query(
      `CREATE INDEX "email_messages_site_id_status_id_idx" ON "email_messages" ("site_id", "status", "id")`,
    );
    await queryRunner.query(`CREATE INDEX "email_messages_batch_id_idx" ON "email_messages" ("batch_id")`);
    // Messages waiting for SMTP (none configured, or a crash between claim and send).
    await queryRunner.query(
      `CREATE INDEX "email_messages_unsent_idx" ON "email_messages" ("id") WHERE status IN ('queued', 'sending')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "email_messages"');
    await queryRunner.query('DROP TABLE "email_templates"');
    await queryRunner.query('ALTER TABLE "sites" DROP COLUMN "settings"');
  }
}
