import { MigrationInterface, QueryRunner } from 'typeorm';

/** Newsletter series (drip sequences, docs/newsletter.md "Series"): steps, enrollments and what was sent. */
export class NewsletterSeries1795430000000 implements MigrationInterface {
  name = 'NewsletterSeries1795430000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "newsletter_series" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "name" text NOT NULL,
      "status" text NOT NULL DEFAULT 'active',
      "version" integer NOT NULL DEFAULT 1,
      "enrolled_through" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_series_status_check" CHECK ("status" IN ('active', 'paused')),
      CONSTRAINT "newsletter_series_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_series_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "newsletter_series_site_id_id_idx" ON "newsletter_series" ("site_id", "id")`);

    await queryRunner.query(`CREATE TABLE "newsletter_series_lists" (
      "series_id" bigint NOT NULL,
      "list_id" bigint NOT NULL,
      "site_id" bigint NOT NULL,
      CONSTRAINT "newsletter_series_lists_pkey" PRIMARY KEY ("series_id", "list_id"),
      CONSTRAINT "newsletter_series_lists_series_id_fkey" FOREIGN KEY ("series_id")
        REFERENCES "newsletter_series"("id") ON DELETE CASCADE,
      CONSTRAINT "newsletter_series_lists_list_id_fkey" FOREIGN KEY ("list_id")
        REFERENCES "newsletter_lists"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "newsletter_series_lists_list_id_idx" ON "newsletter_series_lists" ("list_id")`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_series_steps" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "series_id" bigint NOT NULL,
      "site_id" bigint NOT NULL,
      "position" integer NOT NULL,
      "delay_seconds" integer NOT NULL,
      "subject" text NOT NULL,
      "preview_text" text NOT NULL DEFAULT '',
      "html" text,
      "template_id" bigint,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_series_steps_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_series_steps_series_id_fkey" FOREIGN KEY ("series_id")
        REFERENCES "newsletter_series"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "newsletter_series_steps_series_id_position_idx" ON "newsletter_series_steps" ("series_id", "position")`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_series_enrollments" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "series_id" bigint NOT NULL,
      "subscription_id" bigint NOT NULL,
      "status" text NOT NULL DEFAULT 'active',
      "enrolled_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "next_step_id" bigint,
      "next_due_at" TIMESTAMP(3) WITH TIME ZONE,
      "last_sent_at" TIMESTAMP(3) WITH TIME ZONE,
      "steps_sent" integer NOT NULL DEFAULT 0,
      "stopped_reason" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_series_enrollments_status_check" CHECK ("status" IN ('active', 'completed', 'stopped')),
      CONSTRAINT "newsletter_series_enrollments_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_series_enrollments_series_id_fkey" FOREIGN KEY ("series_id")
        REFERENCES "newsletter_series"("id") ON DELETE CASCADE,
      CONSTRAINT "newsletter_series_enrollments_subscription_id_fkey" FOREIGN KEY ("subscription_id")
        REFERENCES "newsletter_subscriptions"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "newsletter_series_enrollments_series_id_subscription_id_key" ON "newsletter_series_enrollments" ("series_id", "subscription_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_series_enrollments_next_due_at_idx" ON "newsletter_series_enrollments" ("next_due_at") WHERE "status" = 'active'`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_series_enrollments_subscription_id_idx" ON "newsletter_series_enrollments" ("subscription_id")`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_series_sends" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "enrollment_id" bigint NOT NULL,
      "step_id" bigint,
      "position" integer NOT NULL,
      "message_id" bigint,
      "sent_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_series_sends_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_series_sends_enrollment_id_fkey" FOREIGN KEY ("enrollment_id")
        REFERENCES "newsletter_series_enrollments"("id") ON DELETE CASCADE,
      CONSTRAINT "newsletter_series_sends_step_id_fkey" FOREIGN KEY ("step_id")
        REFERENCES "newsletter_series_steps"("id") ON DELETE SET NULL
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "newsletter_series_sends_enrollment_id_step_id_key" ON "newsletter_series_sends" ("enrollment_id", "step_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_series_sends_step_id_idx" ON "newsletter_series_sends" ("step_id")`,
    );

    // The enrollment sweep reads who became active on a trigger list since it last looked.
    await queryRunner.query(
      `CREATE INDEX "newsletter_memberships_list_id_subscribed_at_idx" ON "newsletter_memberships" ("list_id", "subscribed_at") WHERE "status" = 'active'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "newsletter_memberships_list_id_subscribed_at_idx"`);
    for (const table of [
      'newsletter_series_sends',
      'newsletter_series_enrollments',
      'newsletter_series_steps',
      'newsletter_series_lists',
      'newsletter_series',
    ])
      await queryRunner.query(`DROP TABLE "${table}"`);
  }
}
