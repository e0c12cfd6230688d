import { MigrationInterface, QueryRunner } from 'typeorm';

/** One failing outbox subscriber no longer holds back every other event: retries per event. */
export class OutboxRetries1795288516896 implements MigrationInterface {
  name = 'OutboxRetries1795288516896';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "attempts" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "next_attempt_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "last_error" text`);
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "failed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`DROP INDEX "public"."outbox_events_pending_idx"`);
    await queryRunner.query(
      `CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" ("id") WHERE dispatched_at IS NULL AND failed_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."outbox_events_pending_idx"`);
    await queryRunner.query(
      `CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" ("id") WHERE dispatched_at IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "failed_at"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "last_error"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "next_attempt_at"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "attempts"`);
  }
}
