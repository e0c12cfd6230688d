import { MigrationInterface, QueryRunner } from 'typeorm';

/** The contact inbox of each site (docs/contacts.md). */
export class Contacts1795350000000 implements MigrationInterface {
  name = 'Contacts1795350000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "contacts" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "name" text NOT NULL,
      "email" text NOT NULL,
      "phone" text,
      "company" text,
      "subject" text,
      "message" text NOT NULL,
      "source" text NOT NULL DEFAULT 'contact-form',
      "status" text NOT NULL DEFAULT 'new',
      "tags" text array NOT NULL DEFAULT '{}',
      "metadata" jsonb NOT NULL DEFAULT '{}',
      "client_ip" inet,
      "user_agent" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "contacts_status_check" CHECK ("status" IN ('new', 'open', 'closed', 'spam')),
      CONSTRAINT "contacts_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "contacts_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "contacts_site_id_created_at_id_idx" ON "contacts" ("site_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "contacts_site_id_status_created_at_id_idx" ON "contacts" ("site_id", "status", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "contacts_site_id_email_created_at_id_idx" ON "contacts" ("site_id", "email", "created_at", "id")`,
    );
    await queryRunner.query(`CREATE INDEX "contacts_tags_idx" ON "contacts" USING gin ("tags")`);
    await queryRunner.query(
      `CREATE INDEX "contacts_search_idx" ON "contacts" USING gin ((to_tsvector('simple'::regconfig, name || ' ' || coalesce(subject, '') || ' ' || message)))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "contacts"');
  }
}
