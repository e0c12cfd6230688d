import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An import's staged rows as chunks (docs/newsletter.md, "Import"): one row per batch of the
 * file, its columns as arrays, instead of one row per line. Staging a million lines is then
 * two hundred inserts, a batch takes its rows by deleting one row, and two workers take chunks
 * side by side (SKIP LOCKED). Logged, unlike the table it replaces: a database that restarts
 * in the middle of an import keeps what is left of it.
 */
export class NewsletterImportChunks1795415000000 implements MigrationInterface {
  name = 'NewsletterImportChunks1795415000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "newsletter_import_rows"`);
    await queryRunner.query(`CREATE TABLE "newsletter_import_chunks" (
      "import_id" bigint NOT NULL,
      "chunk_no" integer NOT NULL,
      "row_nos" integer[] NOT NULL,
      "emails" text[] NOT NULL,
      "names" text[] NOT NULL,
      "attributes" jsonb[] NOT NULL,
      CONSTRAINT "newsletter_import_chunks_pkey" PRIMARY KEY ("import_id", "chunk_no"),
      CONSTRAINT "newsletter_import_chunks_import_id_fkey" FOREIGN KEY ("import_id")
        REFERENCES "newsletter_imports"("id") ON DELETE CASCADE
    )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "newsletter_import_chunks"`);
    await queryRunner.query(`CREATE UNLOGGED TABLE "newsletter_import_rows" (
      "import_id" bigint NOT NULL,
      "row_no" integer NOT NULL,
      "email" text NOT NULL,
      "email_hash" text NOT NULL,
      "name" text,
      "attributes" jsonb,
      CONSTRAINT "newsletter_import_rows_pkey" PRIMARY KEY ("import_id", "row_no"),
      CONSTRAINT "newsletter_import_rows_import_id_fkey" FOREIGN KEY ("import_id")
        REFERENCES "newsletter_imports"("id") ON DELETE CASCADE
    )`);
  }
}
