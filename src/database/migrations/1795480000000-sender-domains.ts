import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sender domains (docs/email.md, "Sender domains"): an account's claims on the domains its sites
 * send From, each with its DNS challenge and DKIM key pair. One claim per domain and account;
 * another account's claim on the same domain is a row of its own.
 */
export class SenderDomains1795480000000 implements MigrationInterface {
  name = 'SenderDomains1795480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sender_domains" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "account_id" bigint NOT NULL,
         "domain" text NOT NULL, "status" text NOT NULL DEFAULT 'pending', "challenge_token" text NOT NULL,
         "dkim_selector" text NOT NULL, "dkim_public_key" text NOT NULL, "dkim_private_key" text NOT NULL,
         "verified_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
         "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
         CONSTRAINT "PK_f8fc325a1288330ceea6de9f953" PRIMARY KEY ("id"),
         CONSTRAINT "sender_domains_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE,
         CONSTRAINT "sender_domains_status_check" CHECK ("status" IN ('pending', 'verified')))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "sender_domains_account_id_domain_key" ON "sender_domains" ("account_id", "domain")`,
    );
    await queryRunner.query(`CREATE INDEX "sender_domains_account_id_id_idx" ON "sender_domains" ("account_id", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "sender_domains"`);
  }
}
