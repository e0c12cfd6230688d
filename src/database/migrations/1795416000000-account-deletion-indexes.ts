import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes the account deletion's preview and purge read by (test/foundation/query-plans): the
 * events of an account, and the erasure requests of its sites (which outlive their users).
 */
export class AccountDeletionIndexes1795416000000 implements MigrationInterface {
  name = 'AccountDeletionIndexes1795416000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "outbox_events_account_id_id_idx" ON "outbox_events" ("account_id", "id")`);
    await queryRunner.query(`CREATE INDEX "user_deletions_site_id_id_idx" ON "user_deletions" ("site_id", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "user_deletions_site_id_id_idx"`);
    await queryRunner.query(`DROP INDEX "outbox_events_account_id_id_idx"`);
  }
}
