import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Only the person lifts a complaint (docs/deliverability.md): the newsletter now keeps each
 * complaint by the address's hash (`newsletter_suppressions`, reason `complaint`), so no import,
 * sync or bulk action adds the address again, and marks its subscription `complained`. This
 * carries over the complaints recorded before: every `complained` entry of `email_suppressions`
 * (an address, or an erased person's `sha256:<hex>`, the same hex), and the subscriptions of
 * those addresses that a key or a later import had left elsewhere than `complained` or
 * `suppressed`. No CHECK holds `reason`; no index is added.
 */
export class NewsletterComplaints1795610000000 implements MigrationInterface {
  name = 'NewsletterComplaints1795610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      INSERT INTO "newsletter_suppressions" ("site_id", "email_hash", "reason")
      SELECT DISTINCT e."site_id",
             CASE WHEN e."email" LIKE 'sha256:%' THEN substr(e."email", 8)
                  ELSE encode(sha256(convert_to(e."email", 'UTF8')), 'hex') END,
             'complaint'
        FROM "email_suppressions" e WHERE e."reason" = 'complained'
      ON CONFLICT ("site_id", "email_hash") DO UPDATE SET "reason" = 'complaint'`);
    await queryRunner.query(`
      UPDATE "newsletter_subscriptions" s SET "deliverability" = 'complained', "updated_at" = now()
       WHERE s."deliverability" NOT IN ('complained', 'suppressed')
         AND EXISTS (SELECT 1 FROM "newsletter_suppressions" x
                      WHERE x."site_id" = s."site_id" AND x."reason" = 'complaint'
                        AND x."email_hash" = encode(sha256(convert_to(s."email", 'UTF8')), 'hex'))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The subscriptions stay `complained`: that is what the complaints said.
    await queryRunner.query(`DELETE FROM "newsletter_suppressions" WHERE "reason" = 'complaint'`);
  }
}
