import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An outbox event given up after its last attempt is parked, not failed: an operator re-drives it
 * (docs/operations.md). The rename keeps the pending index (PostgreSQL rewrites its predicate);
 * parked events get a partial index of their own, for the gauge and the operator's query. Not
 * CONCURRENTLY, for the reason content-attachment-index gives: the build blocks event writes for
 * one scan of the table (dispatched events are kept 30 days).
 */
export class OutboxParking1795520000000 implements MigrationInterface {
  name = 'OutboxParking1795520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_events" RENAME COLUMN "failed_at" TO "parked_at"`);
    await queryRunner.query(
      `CREATE INDEX "outbox_events_parked_idx" ON "outbox_events" ("id") WHERE parked_at IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."outbox_events_parked_idx"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" RENAME COLUMN "parked_at" TO "failed_at"`);
  }
}
