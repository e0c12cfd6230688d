import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A copy's body is no longer always stored (docs/email.md, "What is stored"): a campaign copy
 * names where its body comes from (`source`, `source_id`, `source_item_id`: the campaign and the
 * subscription) and is rendered when it is sent or shown; a transactional copy's body is dropped
 * after EMAIL_BODY_RETENTION_DAYS (`body_dropped_at` says when). Dropping NOT NULL and adding
 * nullable columns rewrite nothing. The partial index holds only the copies whose body is kept:
 * what the retention reads, in the order it drops them; campaign copies never enter it.
 */
export class LeanMailCopies1795730000000 implements MigrationInterface {
  name = 'LeanMailCopies1795730000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "email_messages" ALTER COLUMN "html" DROP NOT NULL,
      ALTER COLUMN "text" DROP NOT NULL,
      ADD "source" text, ADD "source_id" bigint, ADD "source_item_id" bigint,
      ADD "body_dropped_at" TIMESTAMP(3) WITH TIME ZONE`);
    // A copy without a body has a source or had its body dropped; NOT VALID then VALIDATE: the
    // existing rows are checked without the lock that blocks writes.
    await queryRunner.query(`ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_body_check"
      CHECK ((html IS NOT NULL AND text IS NOT NULL) OR source IS NOT NULL OR body_dropped_at IS NOT NULL) NOT VALID`);
    await queryRunner.query(`ALTER TABLE "email_messages" VALIDATE CONSTRAINT "email_messages_body_check"`);
    await queryRunner.query(`ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_source_check"
      CHECK ((source IS NULL) = (source_id IS NULL) AND (source IS NULL) = (source_item_id IS NULL)) NOT VALID`);
    await queryRunner.query(`ALTER TABLE "email_messages" VALIDATE CONSTRAINT "email_messages_source_check"`);
    await queryRunner.query(
      `CREATE INDEX "email_messages_body_kept_idx" ON "email_messages" ("created_at") WHERE html IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."email_messages_body_kept_idx"`);
    await queryRunner.query(`ALTER TABLE "email_messages" DROP CONSTRAINT "email_messages_source_check"`);
    await queryRunner.query(`ALTER TABLE "email_messages" DROP CONSTRAINT "email_messages_body_check"`);
    await queryRunner.query(`ALTER TABLE "email_messages" DROP COLUMN "body_dropped_at", DROP COLUMN "source_item_id",
      DROP COLUMN "source_id", DROP COLUMN "source"`);
    await queryRunner.query(`UPDATE "email_messages" SET html = coalesce(html, ''), text = coalesce(text, '')`);
    await queryRunner.query(
      `ALTER TABLE "email_messages" ALTER COLUMN "html" SET NOT NULL, ALTER COLUMN "text" SET NOT NULL`,
    );
  }
}
