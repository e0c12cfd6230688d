import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secrets in stored mail (docs/email.md, "What is stored"): a copy keeps its codes and links
 * sealed in `sealed_secrets` and shows `[redacted:<name>]` in their place. Copies stored before
 * this kept them in the clear: in those sent or failed, newsletter tokens (confirm, preferences,
 * one-click unsubscribe; manage links never expire) and sign-in codes are replaced by
 * `[redacted]`. A copy still queued or being sent keeps them, so that it goes out working.
 */
export class SealedMailSecrets1795600000000 implements MigrationInterface {
  name = 'SealedMailSecrets1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "email_messages" ADD "sealed_secrets" text`);
    await queryRunner.query(REDACT_STORED_SECRETS);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "email_messages" DROP COLUMN "sealed_secrets"`);
  }
}

/** A newsletter link's token in a URL (`/confirm/<token>`, `/preferences/<token>`, `?token=<token>`). */
const LINK_TOKEN = `'(/newsletter/(confirm|preferences)/|/newsletter/unsubscribe\\?token=)[A-Za-z0-9_.%-]+'`;

/**
 * The stored copies' secrets, redacted in place: newsletter tokens in every copy of a type that
 * carries them, and six-digit codes in sign-in mail (nothing else of it has six digits in a row).
 */
export const REDACT_STORED_SECRETS = `
UPDATE email_messages SET
  subject = CASE WHEN template_type = 'users.otp' THEN regexp_replace(subject, '\\y[0-9]{6}\\y', '[redacted]', 'g')
                 ELSE subject END,
  html = regexp_replace(CASE WHEN template_type = 'users.otp' THEN regexp_replace(html, '\\y[0-9]{6}\\y', '[redacted]', 'g')
                             ELSE html END, ${LINK_TOKEN}, '\\1[redacted]', 'g'),
  text = regexp_replace(CASE WHEN template_type = 'users.otp' THEN regexp_replace(text, '\\y[0-9]{6}\\y', '[redacted]', 'g')
                             ELSE text END, ${LINK_TOKEN}, '\\1[redacted]', 'g'),
  extra_headers = CASE WHEN extra_headers IS NULL THEN NULL
                       ELSE regexp_replace(extra_headers::text, ${LINK_TOKEN}, '\\1[redacted]', 'g')::jsonb END
WHERE status IN ('sent', 'failed')
  AND template_type IN ('users.otp', 'newsletter.confirmation', 'newsletter.welcome', 'newsletter.campaign')`;
