import { MigrationInterface, QueryRunner } from 'typeorm';

/** A site user's erasure (docs/users.md): the request, and the mark on the user while it waits. */
export class UserErasure1795380000000 implements MigrationInterface {
  name = 'UserErasure1795380000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "site_users" ADD "deletion_scheduled_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`CREATE TABLE "user_deletions" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "user_id" bigint NOT NULL,
      "status" text NOT NULL DEFAULT 'scheduled',
      "purge_after" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "requested_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "canceled_at" TIMESTAMP(3) WITH TIME ZONE,
      "completed_at" TIMESTAMP(3) WITH TIME ZONE,
      "summary" jsonb,
      CONSTRAINT "user_deletions_status_check" CHECK ("status" IN ('scheduled', 'canceled', 'erasing', 'completed')),
      CONSTRAINT "user_deletions_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "user_deletions_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "user_deletions_user_id_id_idx" ON "user_deletions" ("user_id", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "user_deletions"');
    await queryRunner.query('ALTER TABLE "site_users" DROP COLUMN "deletion_scheduled_at"');
  }
}
