import { MigrationInterface, QueryRunner } from 'typeorm';

/** The campaign number in a copy's tags (`newsletter-campaign:<id>`), or null. */
const CAMPAIGN_OF = (tags: string) =>
  `(SELECT substring(t FROM '^newsletter-campaign:([0-9]+)$')::bigint FROM unnest(${tags}) t
     WHERE t ~ '^newsletter-campaign:[0-9]+$' LIMIT 1)`;

/**
 * Bounces and complaints (docs/deliverability.md): the secret the VERP tokens are signed with,
 * every report received (one per message and kind: a DSN sent twice counts once), the site's
 * suppressed addresses, and a campaign's complaints beside its bounces. The campaign counters are
 * kept by a trigger on the reports, as the email_messages trigger keeps delivered and failed: the
 * email module knows nothing of campaigns but the tag it was given.
 */
export class Bounces1795530000000 implements MigrationInterface {
  name = 'Bounces1795530000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "server_secrets" (
      "name" text NOT NULL,
      "secret" bytea NOT NULL,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "server_secrets_pkey" PRIMARY KEY ("name")
    )`);

    await queryRunner.query(`CREATE TABLE "email_bounces" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "message_id" bigint NOT NULL,
      "recipient" text NOT NULL,
      "kind" text NOT NULL,
      "source" text NOT NULL,
      "status" text,
      "diagnostic" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "email_bounces_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "email_bounces_kind_check" CHECK ("kind" IN ('hard', 'soft', 'complaint')),
      CONSTRAINT "email_bounces_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE,
      CONSTRAINT "email_bounces_message_id_fkey" FOREIGN KEY ("message_id")
        REFERENCES "email_messages"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "email_bounces_message_id_kind_key" ON "email_bounces" ("message_id", "kind")`,
    );
    // The soft bounces of one address in the window (the policy), and the site's reports newest first.
    await queryRunner.query(
      `CREATE INDEX "email_bounces_site_id_recipient_created_at_idx" ON "email_bounces" ("site_id", "recipient", "created_at")`,
    );

    await queryRunner.query(`CREATE TABLE "email_suppressions" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "email" text NOT NULL,
      "reason" text NOT NULL,
      "note" text,
      "message_id" bigint,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "email_suppressions_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "email_suppressions_reason_check" CHECK ("reason" IN ('bounced', 'complained', 'manual')),
      CONSTRAINT "email_suppressions_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "email_suppressions_site_id_email_key" ON "email_suppressions" ("site_id", "email")`,
    );
    // The operator's list, newest first (keyset on id).
    await queryRunner.query(
      `CREATE INDEX "email_suppressions_site_id_id_idx" ON "email_suppressions" ("site_id", "id")`,
    );

    await queryRunner.query(`ALTER TABLE "newsletter_campaign_stats" ADD "complaints" integer NOT NULL DEFAULT '0'`);
    // A campaign copy's first bounce report (hard or soft) counts one bounce; a complaint one complaint.
    await queryRunner.query(
      `CREATE FUNCTION newsletter_campaign_bounce_report() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE campaign bigint;
       BEGIN
         SELECT ${CAMPAIGN_OF('m.tags')} INTO campaign FROM email_messages m WHERE m.id = NEW.message_id;
         IF campaign IS NULL THEN RETURN NULL; END IF;
         IF NEW.kind = 'complaint' THEN
           UPDATE newsletter_campaign_stats SET complaints = complaints + 1 WHERE campaign_id = campaign;
         ELSIF NOT EXISTS (SELECT 1 FROM email_bounces b WHERE b.message_id = NEW.message_id
                             AND b.kind <> 'complaint' AND b.id <> NEW.id) THEN
           UPDATE newsletter_campaign_stats SET bounced = bounced + 1 WHERE campaign_id = campaign;
         END IF;
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER newsletter_campaign_bounce_report AFTER INSERT ON email_bounces
         FOR EACH ROW EXECUTE FUNCTION newsletter_campaign_bounce_report()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER newsletter_campaign_bounce_report ON email_bounces`);
    await queryRunner.query(`DROP FUNCTION newsletter_campaign_bounce_report()`);
    await queryRunner.query(`ALTER TABLE "newsletter_campaign_stats" DROP COLUMN "complaints"`);
    await queryRunner.query(`DROP TABLE "email_suppressions"`);
    await queryRunner.query(`DROP TABLE "email_bounces"`);
    await queryRunner.query(`DROP TABLE "server_secrets"`);
  }
}
