import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook endpoints, their deliveries and every attempt (docs/webhooks.md). */
export class Webhooks1795310000000 implements MigrationInterface {
  name = 'Webhooks1795310000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "webhook_endpoints" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "url" text NOT NULL,
      "description" text NOT NULL DEFAULT '',
      "event_types" text array NOT NULL,
      "headers" jsonb NOT NULL DEFAULT '{}',
      "status" text NOT NULL DEFAULT 'enabled',
      "disabled_reason" text,
      "disabled_at" TIMESTAMP(3) WITH TIME ZONE,
      "secret" text NOT NULL,
      "previous_secret" text,
      "previous_secret_expires_at" TIMESTAMP(3) WITH TIME ZONE,
      "failing_since" TIMESTAMP(3) WITH TIME ZONE,
      "consecutive_failures" integer NOT NULL DEFAULT 0,
      "retry_at" TIMESTAMP(3) WITH TIME ZONE,
      "last_success_at" TIMESTAMP(3) WITH TIME ZONE,
      "last_failure_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "webhook_endpoints_status_check" CHECK ("status" IN ('enabled', 'disabled')),
      CONSTRAINT "webhook_endpoints_disabled_reason_check" CHECK ("disabled_reason" IN ('manual', 'failing')),
      CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "webhook_endpoints_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE INDEX "webhook_endpoints_site_id_id_idx" ON "webhook_endpoints" ("site_id", "id")`);
    await queryRunner.query(`CREATE TABLE "webhook_deliveries" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "endpoint_id" bigint NOT NULL,
      "event_id" bigint,
      "event_type" text NOT NULL,
      "payload" text NOT NULL,
      "status" text NOT NULL DEFAULT 'pending',
      "attempts" integer NOT NULL DEFAULT 0,
      "next_attempt_at" TIMESTAMP(3) WITH TIME ZONE,
      "expires_at" TIMESTAMP(3) WITH TIME ZONE,
      "last_attempt_at" TIMESTAMP(3) WITH TIME ZONE,
      "last_status_code" integer,
      "last_error_kind" text,
      "last_error" text,
      "delivered_at" TIMESTAMP(3) WITH TIME ZONE,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed')),
      CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id")
        REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE
    )`);
    // An endpoint's log, newest first; its pending deliveries in order (the drain).
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_endpoint_id_id_idx" ON "webhook_deliveries" ("endpoint_id", "id")`,
    );
    // One delivery per event and endpoint: the outbox relay is at-least-once.
    await queryRunner.query(
      `CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_event_id_key" ON "webhook_deliveries" ("endpoint_id", "event_id")`,
    );
    // The drain: an endpoint's pending deliveries, oldest first (a few rows, however long the log).
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_endpoint_id_pending_idx" ON "webhook_deliveries" ("endpoint_id", "id") WHERE status = 'pending'`,
    );
    // The sweep: deliveries due for an attempt.
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE status = 'pending'`,
    );
    await queryRunner.query(`CREATE TABLE "webhook_attempts" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "delivery_id" bigint NOT NULL,
      "attempted_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "status_code" integer,
      "duration_ms" integer NOT NULL,
      "response_excerpt" text NOT NULL DEFAULT '',
      "error_kind" text,
      "error" text,
      CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id")
        REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "webhook_attempts_delivery_id_id_idx" ON "webhook_attempts" ("delivery_id", "id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "webhook_attempts"');
    await queryRunner.query('DROP TABLE "webhook_deliveries"');
    await queryRunner.query('DROP TABLE "webhook_endpoints"');
  }
}
