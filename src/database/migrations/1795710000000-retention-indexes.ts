import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEXES: Array<[name: string, definition: string]> = [
  ['newsletter_tracking_events_created_at_idx', `"newsletter_tracking_events" ("created_at")`],
  ['user_sessions_expires_at_idx', `"user_sessions" ("expires_at")`],
  ['user_otps_expires_at_idx', `"user_otps" ("expires_at")`],
  ['payment_events_received_at_idx', `"payment_events" ("received_at")`],
  ['outbox_events_dispatched_at_idx', `"outbox_events" ("dispatched_at") WHERE dispatched_at IS NOT NULL`],
  ['webhook_deliveries_finished_created_at_idx', `"webhook_deliveries" ("created_at") WHERE status <> 'pending'`],
];

/**
 * The retention rules' indexes (docs/deployment.md, "Storage and retention"): each rule takes its
 * oldest rows first, `RETENTION_BATCH_SIZE` at a time, and finds them by this index instead of a
 * scan of the table (which would also read every young row when nothing is old). Not
 * CONCURRENTLY, for the reason content-attachment-index gives: each build blocks writes to its
 * table while it runs (about a second per million rows).
 */
export class RetentionIndexes1795710000000 implements MigrationInterface {
  name = 'RetentionIndexes1795710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, definition] of INDEXES) await queryRunner.query(`CREATE INDEX "${name}" ON ${definition}`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of INDEXES) await queryRunner.query(`DROP INDEX "public"."${name}"`);
  }
}
