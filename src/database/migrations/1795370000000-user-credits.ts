import { MigrationInterface, QueryRunner } from 'typeorm';

/** Site users' credit ledger (docs/users.md). */
export class UserCredits1795370000000 implements MigrationInterface {
  name = 'UserCredits1795370000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "user_credit_entries" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "user_id" bigint NOT NULL,
      "kind" text NOT NULL,
      "amount" integer NOT NULL,
      "remaining" integer NOT NULL DEFAULT 0,
      "reason" text NOT NULL DEFAULT '',
      "reference" text,
      "expires_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "user_credit_entries_kind_check" CHECK ("kind" IN ('grant', 'spend', 'expire', 'refund')),
      CONSTRAINT "user_credit_entries_remaining_check" CHECK ("remaining" >= 0 AND "remaining" <= GREATEST("amount", 0)),
      CONSTRAINT "user_credit_entries_sign_check" CHECK (
        ("kind" IN ('grant', 'refund') AND "amount" > 0) OR ("kind" IN ('spend', 'expire') AND "amount" < 0)),
      CONSTRAINT "user_credit_entries_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "user_credit_entries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "site_users"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "user_credit_entries_user_id_id_idx" ON "user_credit_entries" ("user_id", "id")`,
    );
    // What can still be spent: a user's open grants, soonest expiry first.
    await queryRunner.query(
      `CREATE INDEX "user_credit_entries_open_idx" ON "user_credit_entries" ("user_id", "expires_at") WHERE remaining > 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "user_credit_entries"');
  }
}
