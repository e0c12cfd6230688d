import { MigrationInterface, QueryRunner } from 'typeorm';

/** The campaign number in a copy's tags (`newsletter-campaign:<id>`), or null. */
const CAMPAIGN_OF = (tags: string) =>
  `(SELECT substring(t FROM '^newsletter-campaign:([0-9]+)$')::bigint FROM unnest(${tags}) t
     WHERE t ~ '^newsletter-campaign:[0-9]+$' LIMIT 1)`;

/** The statement's campaign copies that became sent or failed, with their campaign. */
const SETTLED = `SELECT c.campaign_id, n.site_id, n.recipient, n.status,
         n.status = 'failed' AND coalesce(n.error, '') ~ '^5[0-9][0-9]' AS bounced
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    CROSS JOIN LATERAL (SELECT ${CAMPAIGN_OF('n.tags')} AS campaign_id) c
   WHERE n.status IN ('sent', 'failed') AND o.status IS DISTINCT FROM n.status
     AND n.tags @> ARRAY['newsletter-campaign']::text[] AND c.campaign_id IS NOT NULL`;

/**
 * A campaign's copies delivered or failed, counted per statement instead of per row: the email
 * module settles a group of answers in one UPDATE (docs/email.md, "Delivery"), and a row trigger
 * then ran two more statements for each copy. The statement trigger reads the UPDATE's old and
 * new rows, adds each campaign's counts once (its stats rows locked in campaign order, so two
 * groups that touch the same campaigns cannot deadlock), and stamps the recipients' delivery time
 * in one join.
 */
export class CampaignMessageStatus1795450000000 implements MigrationInterface {
  name = 'CampaignMessageStatus1795450000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER newsletter_campaign_message_status ON email_messages`);
    await queryRunner.query(`DROP FUNCTION newsletter_campaign_message_status()`);
    await queryRunner.query(
      `CREATE FUNCTION newsletter_campaign_messages_status() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NOT EXISTS (${SETTLED}) THEN RETURN NULL; END IF;
         PERFORM 1 FROM newsletter_campaign_stats
           WHERE campaign_id IN (SELECT campaign_id FROM (${SETTLED}) d) ORDER BY campaign_id FOR UPDATE;
         UPDATE newsletter_campaign_stats st SET
           delivered = st.delivered + c.delivered, failed = st.failed + c.failed, bounced = st.bounced + c.bounced
           FROM (SELECT campaign_id, count(*) FILTER (WHERE status = 'sent') AS delivered,
                        count(*) FILTER (WHERE status = 'failed') AS failed, count(*) FILTER (WHERE bounced) AS bounced
                   FROM (${SETTLED}) d GROUP BY campaign_id) c
          WHERE st.campaign_id = c.campaign_id;
         -- When the copy left: opens and clicks soon after it are a machine's (prefetch, scanners).
         UPDATE newsletter_campaign_recipients r SET delivered_at = now()
           FROM (${SETTLED}) d JOIN newsletter_subscriptions s ON s.site_id = d.site_id AND s.email = d.recipient
          WHERE d.status = 'sent' AND r.campaign_id = d.campaign_id AND r.subscription_id = s.id;
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER newsletter_campaign_messages_status AFTER UPDATE ON email_messages
         REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
         FOR EACH STATEMENT EXECUTE FUNCTION newsletter_campaign_messages_status()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER newsletter_campaign_messages_status ON email_messages`);
    await queryRunner.query(`DROP FUNCTION newsletter_campaign_messages_status()`);
    await queryRunner.query(
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
         IF NEW.status = 'sent' THEN
           UPDATE newsletter_campaign_recipients r SET delivered_at = now()
             FROM newsletter_subscriptions s
            WHERE s.site_id = NEW.site_id AND s.email = NEW.recipient
              AND r.campaign_id = campaign AND r.subscription_id = s.id;
         END IF;
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER newsletter_campaign_message_status AFTER UPDATE OF status ON email_messages FOR EACH ROW
         WHEN (NEW.status IN ('sent', 'failed') AND OLD.status IS DISTINCT FROM NEW.status
               AND NEW.tags @> ARRAY['newsletter-campaign']::text[])
         EXECUTE FUNCTION newsletter_campaign_message_status()`,
    );
  }
}
