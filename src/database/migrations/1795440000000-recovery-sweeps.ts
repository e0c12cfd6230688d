import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the recovery sweeps read (docs/reliability.md, "After a crash"): scheduled items past
 * their time, messages claimed by a sender that stopped answering, and unfinished imports.
 * Each is partial, so it holds only the few rows in that state.
 */
export class RecoverySweeps1795440000000 implements MigrationInterface {
  name = 'RecoverySweeps1795440000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "content_items_scheduled_idx" ON "content_items" ("publish_at") WHERE "status" = 'scheduled'`,
    );
    await queryRunner.query(
      `CREATE INDEX "email_messages_sending_idx" ON "email_messages" ("claimed_at") WHERE "status" = 'sending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_imports_unfinished_idx" ON "newsletter_imports" ("updated_at") WHERE "status" IN ('queued', 'running')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "newsletter_imports_unfinished_idx"`);
    await queryRunner.query(`DROP INDEX "email_messages_sending_idx"`);
    await queryRunner.query(`DROP INDEX "content_items_scheduled_idx"`);
  }
}
