import { MigrationInterface, QueryRunner } from 'typeorm';

/** Per-copy headers of a mail (docs/email.md): a campaign's List-Unsubscribe and the like. */
export class EmailExtraHeaders1795410000000 implements MigrationInterface {
  name = 'EmailExtraHeaders1795410000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "email_messages" ADD "extra_headers" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "email_messages" DROP COLUMN "extra_headers"`);
  }
}
