import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A provider's bounce or complaint event (SES, Mailgun, SendGrid, Postmark) names the message by
 * its Message-ID, which email_messages keeps as sent (`<…>`, as nodemailer reports it): one look
 * up by it, together with the recipient (docs/deliverability.md). Partial: queued and failed
 * copies have none. Not CONCURRENTLY, for the reason content-attachment-index gives.
 */
export class EmailMessageIdIndex1795560000000 implements MigrationInterface {
  name = 'EmailMessageIdIndex1795560000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "email_messages_smtp_message_id_idx" ON "email_messages" ("smtp_message_id") WHERE smtp_message_id IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."email_messages_smtp_message_id_idx"`);
  }
}
