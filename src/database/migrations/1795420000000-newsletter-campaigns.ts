import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Newsletter campaigns, their recipients, open and click tracking, and the aggregates the
 * statistics read (docs/newsletter.md, "Campaigns", "Tracking", "Statistics"). The list counts and
 * the daily growth are kept by statement-level triggers on newsletter_memberships, so every
 * writer (subscribe, import, bulk, sync, cascades) keeps them without knowing of them; a
 * campaign's delivered/failed counts by a row trigger on email_messages tagged with the campaign.
 */
export class NewsletterCampaigns1795420000000 implements MigrationInterface {
  name = 'NewsletterCampaigns1795420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "newsletter_campaigns" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "name" text NOT NULL,
      "slug" text COLLATE "C" NOT NULL,
      "subject" text NOT NULL DEFAULT '',
      "preview_text" text NOT NULL DEFAULT '',
      "from_name" text,
      "from_address" text,
      "reply_to" text,
      "content_html" text NOT NULL DEFAULT '',
      "template_id" bigint,
      "list_ids" bigint array NOT NULL DEFAULT '{}',
      "attribute_filter" jsonb,
      "status" text NOT NULL DEFAULT 'draft',
      "scheduled_at" TIMESTAMP(3) WITH TIME ZONE,
      "started_at" TIMESTAMP(3) WITH TIME ZONE,
      "sent_at" TIMESTAMP(3) WITH TIME ZONE,
      "canceled_at" TIMESTAMP(3) WITH TIME ZONE,
      "send_cursor" bigint NOT NULL DEFAULT '0',
      "recipient_count" integer NOT NULL DEFAULT '0',
      "audience_count" integer,
      "version" integer NOT NULL DEFAULT '1',
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_campaigns_status_check"
        CHECK ("status" IN ('draft', 'scheduled', 'sending', 'paused', 'sent', 'canceled')),
      CONSTRAINT "newsletter_campaigns_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_campaigns_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "newsletter_campaigns_site_id_slug_key" ON "newsletter_campaigns" ("site_id", "slug")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_campaigns_site_id_id_idx" ON "newsletter_campaigns" ("site_id", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_campaigns_site_id_status_id_idx" ON "newsletter_campaigns" ("site_id", "status", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "newsletter_campaigns_sending_idx" ON "newsletter_campaigns" ("id") WHERE status = 'sending'`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_campaign_stats" (
      "campaign_id" bigint NOT NULL,
      "site_id" bigint NOT NULL,
      "delivered" integer NOT NULL DEFAULT '0',
      "failed" integer NOT NULL DEFAULT '0',
      "bounced" integer NOT NULL DEFAULT '0',
      "opens" integer NOT NULL DEFAULT '0',
      "unique_opens" integer NOT NULL DEFAULT '0',
      "machine_opens" integer NOT NULL DEFAULT '0',
      "unique_machine_opens" integer NOT NULL DEFAULT '0',
      "clicks" integer NOT NULL DEFAULT '0',
      "unique_clicks" integer NOT NULL DEFAULT '0',
      "machine_clicks" integer NOT NULL DEFAULT '0',
      "unique_machine_clicks" integer NOT NULL DEFAULT '0',
      "unsubscribes" integer NOT NULL DEFAULT '0',
      CONSTRAINT "newsletter_campaign_stats_pkey" PRIMARY KEY ("campaign_id"),
      CONSTRAINT "newsletter_campaign_stats_campaign_id_fkey" FOREIGN KEY ("campaign_id")
        REFERENCES "newsletter_campaigns"("id") ON DELETE CASCADE
    )`);

    await queryRunner.query(`CREATE TABLE "newsletter_campaign_links" (
      "campaign_id" bigint NOT NULL,
      "link_index" integer NOT NULL,
      "site_id" bigint NOT NULL,
      "url" text NOT NULL,
      "clicks" integer NOT NULL DEFAULT '0',
      "machine_clicks" integer NOT NULL DEFAULT '0',
      CONSTRAINT "newsletter_campaign_links_pkey" PRIMARY KEY ("campaign_id", "link_index"),
      CONSTRAINT "newsletter_campaign_links_campaign_id_fkey" FOREIGN KEY ("campaign_id")
        REFERENCES "newsletter_campaigns"("id") ON DELETE CASCADE
    )`);

    await queryRunner.query(`CREATE TABLE "newsletter_campaign_recipients" (
      "campaign_id" bigint NOT NULL,
      "subscription_id" bigint NOT NULL,
      "site_id" bigint NOT NULL,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "delivered_at" TIMESTAMP(3) WITH TIME ZONE,
      "opened_at" TIMESTAMP(3) WITH TIME ZONE,
      "machine_opened_at" TIMESTAMP(3) WITH TIME ZONE,
      "clicked_at" TIMESTAMP(3) WITH TIME ZONE,
      "machine_clicked_at" TIMESTAMP(3) WITH TIME ZONE,
      "unsubscribed_at" TIMESTAMP(3) WITH TIME ZONE,
      CONSTRAINT "newsletter_campaign_recipients_pkey" PRIMARY KEY ("campaign_id", "subscription_id"),
      CONSTRAINT "newsletter_campaign_recipients_campaign_id_fkey" FOREIGN KEY ("campaign_id")
        REFERENCES "newsletter_campaigns"("id") ON DELETE CASCADE,
      CONSTRAINT "newsletter_campaign_recipients_subscription_id_fkey" FOREIGN KEY ("subscription_id")
        REFERENCES "newsletter_subscriptions"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "newsletter_campaign_recipients_subscription_id_created_at_idx" ON "newsletter_campaign_recipients" ("subscription_id", "created_at")`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_tracking_events" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "site_id" bigint NOT NULL,
      "campaign_id" bigint NOT NULL,
      "subscription_id" bigint NOT NULL,
      "kind" text NOT NULL,
      "link_index" integer,
      "machine" boolean NOT NULL DEFAULT false,
      "machine_reason" text,
      "user_agent" text,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "newsletter_tracking_events_kind_check" CHECK ("kind" IN ('open', 'click')),
      CONSTRAINT "newsletter_tracking_events_pkey" PRIMARY KEY ("id"),
      CONSTRAINT "newsletter_tracking_events_recipient_fkey" FOREIGN KEY ("campaign_id", "subscription_id")
        REFERENCES "newsletter_campaign_recipients"("campaign_id", "subscription_id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "newsletter_tracking_events_campaign_id_subscription_id_idx" ON "newsletter_tracking_events" ("campaign_id", "subscription_id")`,
    );

    await queryRunner.query(`CREATE TABLE "newsletter_list_counts" (
      "list_id" bigint NOT NULL,
      "status" text NOT NULL,
      "site_id" bigint NOT NULL,
      "count" integer NOT NULL DEFAULT '0',
      CONSTRAINT "newsletter_list_counts_pkey" PRIMARY KEY ("list_id", "status"),
      CONSTRAINT "newsletter_list_counts_list_id_fkey" FOREIGN KEY ("list_id")
        REFERENCES "newsletter_lists"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(`CREATE TABLE "newsletter_list_daily" (
      "list_id" bigint NOT NULL,
      "day" date NOT NULL,
      "site_id" bigint NOT NULL,
      "joined" integer NOT NULL DEFAULT '0',
      "unsubscribed" integer NOT NULL DEFAULT '0',
      CONSTRAINT "newsletter_list_daily_pkey" PRIMARY KEY ("list_id", "day"),
      CONSTRAINT "newsletter_list_daily_list_id_fkey" FOREIGN KEY ("list_id")
        REFERENCES "newsletter_lists"("id") ON DELETE CASCADE
    )`);
    await queryRunner.query(
      `CREATE INDEX "newsletter_list_daily_site_id_day_idx" ON "newsletter_list_daily" ("site_id", "day")`,
    );

    // What exists already.
    await queryRunner.query(`INSERT INTO newsletter_list_counts (list_id, status, site_id, count)
      SELECT list_id, status, min(site_id), count(*) FROM newsletter_memberships GROUP BY list_id, status`);
    await queryRunner.query(`INSERT INTO newsletter_list_daily (list_id, day, site_id, joined, unsubscribed)
      SELECT list_id, day, min(site_id), sum(j), sum(u) FROM (
        SELECT list_id, site_id, (subscribed_at AT TIME ZONE 'UTC')::date AS day, 1 AS j, 0 AS u
          FROM newsletter_memberships WHERE subscribed_at IS NOT NULL
        UNION ALL
        SELECT list_id, site_id, (unsubscribed_at AT TIME ZONE 'UTC')::date, 0, 1
          FROM newsletter_memberships WHERE unsubscribed_at IS NOT NULL) x GROUP BY list_id, day`);

    for (const statement of TRIGGERS) await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS newsletter_campaign_message_status ON email_messages`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS newsletter_memberships_counts_ins ON newsletter_memberships`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS newsletter_memberships_counts_upd ON newsletter_memberships`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS newsletter_memberships_counts_del ON newsletter_memberships`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS newsletter_campaign_message_status()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS newsletter_memberships_counts_ins()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS newsletter_memberships_counts_upd()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS newsletter_memberships_counts_del()`);
    for (const table of [
      'newsletter_list_daily',
      'newsletter_list_counts',
      'newsletter_tracking_events',
      'newsletter_campaign_recipients',
      'newsletter_campaign_links',
      'newsletter_campaign_stats',
      'newsletter_campaigns',
    ])
      await queryRunner.query(`DROP TABLE "${table}"`);
  }
}

/** Days are UTC days. */
const TODAY = `(now() AT TIME ZONE 'UTC')::date`;
/** The memberships of an UPDATE statement whose status changed. */
const MOVES = `SELECT n.list_id, n.site_id, n.subscription_id, o.status AS old_status, n.status AS new_status
  FROM new_rows n JOIN old_rows o ON o.subscription_id = n.subscription_id AND o.list_id = n.list_id
  WHERE o.status <> n.status`;

const TRIGGERS = [
  // New memberships: counted by status; an active one joined today.
  `CREATE FUNCTION newsletter_memberships_counts_ins() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO newsletter_list_counts AS c (list_id, status, site_id, count)
       SELECT list_id, status, min(site_id), count(*) FROM new_rows GROUP BY list_id, status ORDER BY list_id, status
       ON CONFLICT (list_id, status) DO UPDATE SET count = c.count + EXCLUDED.count;
     INSERT INTO newsletter_list_daily AS d (list_id, day, site_id, joined)
       SELECT list_id, ${TODAY}, min(site_id), count(*) FROM new_rows WHERE status = 'active' GROUP BY list_id ORDER BY list_id
       ON CONFLICT (list_id, day) DO UPDATE SET joined = d.joined + EXCLUDED.joined;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER newsletter_memberships_counts_ins AFTER INSERT ON newsletter_memberships
     REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION newsletter_memberships_counts_ins()`,
  // Status changes: moved between counts; joins and leaves of the day; a leave within 30 days of
  // a campaign mail counts as that campaign's unsubscribe (the latest one, once per recipient).
  `CREATE FUNCTION newsletter_memberships_counts_upd() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM 1 FROM new_rows n JOIN old_rows o ON o.subscription_id = n.subscription_id AND o.list_id = n.list_id
       WHERE o.status <> n.status LIMIT 1;
     IF NOT FOUND THEN RETURN NULL; END IF;
     WITH moves AS (${MOVES})
     INSERT INTO newsletter_list_counts AS c (list_id, status, site_id, count)
       SELECT list_id, status, min(site_id), sum(delta) FROM (
         SELECT list_id, site_id, new_status AS status, 1 AS delta FROM moves
         UNION ALL SELECT list_id, site_id, old_status, -1 FROM moves) m
       GROUP BY list_id, status ORDER BY list_id, status
       ON CONFLICT (list_id, status) DO UPDATE SET count = c.count + EXCLUDED.count;
     WITH moves AS (${MOVES})
     INSERT INTO newsletter_list_daily AS d (list_id, day, site_id, joined, unsubscribed)
       SELECT list_id, ${TODAY}, min(site_id), count(*) FILTER (WHERE new_status = 'active'),
              count(*) FILTER (WHERE new_status = 'unsubscribed')
         FROM moves WHERE new_status IN ('active', 'unsubscribed') GROUP BY list_id ORDER BY list_id
       ON CONFLICT (list_id, day) DO UPDATE SET joined = d.joined + EXCLUDED.joined,
         unsubscribed = d.unsubscribed + EXCLUDED.unsubscribed;
     WITH moves AS (${MOVES}),
     latest AS (
       SELECT DISTINCT ON (r.subscription_id) r.campaign_id, r.subscription_id
         FROM newsletter_campaign_recipients r
        WHERE r.subscription_id IN (SELECT subscription_id FROM moves WHERE new_status = 'unsubscribed')
          AND r.created_at > now() - interval '30 days'
        ORDER BY r.subscription_id, r.created_at DESC),
     marked AS (
       UPDATE newsletter_campaign_recipients r SET unsubscribed_at = now() FROM latest l
        WHERE r.campaign_id = l.campaign_id AND r.subscription_id = l.subscription_id AND r.unsubscribed_at IS NULL
        RETURNING r.campaign_id)
     UPDATE newsletter_campaign_stats s SET unsubscribes = s.unsubscribes + m.n
       FROM (SELECT campaign_id, count(*) AS n FROM marked GROUP BY campaign_id) m WHERE s.campaign_id = m.campaign_id;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER newsletter_memberships_counts_upd AFTER UPDATE ON newsletter_memberships
     REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION newsletter_memberships_counts_upd()`,
  // Removed memberships leave their count (a list's own deletion takes its counts with it).
  `CREATE FUNCTION newsletter_memberships_counts_del() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE newsletter_list_counts c SET count = c.count - g.n
       FROM (SELECT list_id, status, count(*) AS n FROM old_rows GROUP BY list_id, status ORDER BY list_id, status) g
      WHERE c.list_id = g.list_id AND c.status = g.status;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER newsletter_memberships_counts_del AFTER DELETE ON newsletter_memberships
     REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION newsletter_memberships_counts_del()`,
  // A campaign's copy delivered or failed (a 5xx refusal is also a bounce), and when it was delivered.
  `CREATE FUNCTION newsletter_campaign_message_status() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE campaign bigint;
   BEGIN
     SELECT substring(t FROM '^newsletter-campaign:([0-9]+)$')::bigint INTO campaign
       FROM unnest(NEW.tags) t WHERE t ~ '^newsletter-campaign:[0-9]+$' LIMIT 1;
     IF campaign IS NULL THEN RETURN NULL; END IF;
     UPDATE newsletter_campaign_stats SET
       delivered = delivered + (NEW.status = 'sent')::int,
       failed = failed + (NEW.status = 'failed')::int,
       bounced = bounced + (NEW.status = 'failed' AND coalesce(NEW.error, '') ~ '^5[0-9][0-9]')::int
      WHERE campaign_id = campaign;
     -- When the copy left: opens and clicks soon after it are a machine's (prefetch, scanners).
     IF NEW.status = 'sent' THEN
       UPDATE newsletter_campaign_recipients r SET delivered_at = now()
         FROM newsletter_subscriptions s
        WHERE s.site_id = NEW.site_id AND s.email = NEW.recipient
          AND r.campaign_id = campaign AND r.subscription_id = s.id;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER newsletter_campaign_message_status AFTER UPDATE OF status ON email_messages FOR EACH ROW
     WHEN (NEW.status IN ('sent', 'failed') AND OLD.status IS DISTINCT FROM NEW.status
           AND NEW.tags @> ARRAY['newsletter-campaign']::text[])
     EXECUTE FUNCTION newsletter_campaign_message_status()`,
];
