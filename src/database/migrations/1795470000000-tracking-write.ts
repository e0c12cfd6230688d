import { MigrationInterface, QueryRunner } from 'typeorm';

/** The recipients' first open or click of each kind: one UPDATE each, in its own statement. */
const FIRST = (column: string, into: string, kind: string, machine: boolean) => `
  WITH firsts AS (
    UPDATE newsletter_campaign_recipients r SET ${column} = now()
      FROM (SELECT DISTINCT x.c, x.s FROM unnest(e_campaign, e_subscription, e_kind, e_machine) AS x(c, s, k, m)
             WHERE x.k = '${kind}' AND ${machine ? '' : 'NOT '}x.m ORDER BY x.c, x.s) p
     WHERE r.campaign_id = p.c AND r.subscription_id = p.s AND r.${column} IS NULL
    RETURNING r.campaign_id)
  SELECT coalesce(array_agg(campaign_id), '{}') INTO ${into} FROM firsts;`;

/**
 * One batch of opens and clicks written by one call (docs/newsletter.md, "Tracking"): the events
 * (only of recipients that exist; flagged as a machine's when they come within the window after
 * delivery), the recipients' first open and click of each kind, the campaigns' counters (total and
 * unique, human and machine apart) and the links' clicks. The tracking writer sent these as five
 * statements in a transaction, a round trip each; as one function call the batch is one statement
 * (atomic on its own) and one round trip, which a burst of opens after a large send pays hundreds
 * of times a second. Answers the (campaign, subscription) pairs stored.
 */
export class TrackingWrite1795470000000 implements MigrationInterface {
  name = 'TrackingWrite1795470000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION newsletter_tracking_write(
         p_site bigint[], p_campaign bigint[], p_subscription bigint[], p_kind text[], p_link int[],
         p_machine boolean[], p_reason text[], p_agent text[], p_at timestamptz[], p_window_seconds int)
       RETURNS TABLE (stored_campaign bigint, stored_subscription bigint) LANGUAGE plpgsql AS $$
       DECLARE
         e_campaign bigint[]; e_subscription bigint[]; e_kind text[]; e_link int[]; e_machine boolean[];
         first_open bigint[]; first_machine_open bigint[]; first_click bigint[]; first_machine_click bigint[];
       BEGIN
         WITH stored AS (
           INSERT INTO newsletter_tracking_events AS t
             (site_id, campaign_id, subscription_id, kind, link_index, machine, machine_reason, user_agent, created_at)
           SELECT e.site_id, e.campaign_id, e.subscription_id, e.kind, e.link_index,
                  e.machine OR coalesce(r.delivered_at, r.created_at) > e.at - make_interval(secs => p_window_seconds),
                  coalesce(e.reason, CASE WHEN coalesce(r.delivered_at, r.created_at) > e.at - make_interval(secs => p_window_seconds)
                                          THEN 'soon_after_delivery' END),
                  e.agent, e.at
             FROM unnest(p_site, p_campaign, p_subscription, p_kind, p_link, p_machine, p_reason, p_agent, p_at)
                  AS e(site_id, campaign_id, subscription_id, kind, link_index, machine, reason, agent, at)
             JOIN newsletter_campaign_recipients r
               ON r.campaign_id = e.campaign_id AND r.subscription_id = e.subscription_id AND r.site_id = e.site_id
           RETURNING t.campaign_id, t.subscription_id, t.kind, t.link_index, t.machine)
         SELECT array_agg(s.campaign_id), array_agg(s.subscription_id), array_agg(s.kind), array_agg(s.link_index),
                array_agg(s.machine)
           INTO e_campaign, e_subscription, e_kind, e_link, e_machine FROM stored s;
         IF e_campaign IS NULL THEN RETURN; END IF;
         ${FIRST('opened_at', 'first_open', 'open', false)}
         ${FIRST('machine_opened_at', 'first_machine_open', 'open', true)}
         ${FIRST('clicked_at', 'first_click', 'click', false)}
         ${FIRST('machine_clicked_at', 'first_machine_click', 'click', true)}
         UPDATE newsletter_campaign_stats s SET
           opens = s.opens + u.o, machine_opens = s.machine_opens + u.mo,
           clicks = s.clicks + u.c, machine_clicks = s.machine_clicks + u.mc,
           unique_opens = s.unique_opens + u.uo, unique_machine_opens = s.unique_machine_opens + u.umo,
           unique_clicks = s.unique_clicks + u.uc, unique_machine_clicks = s.unique_machine_clicks + u.umc
           FROM (SELECT z.id, sum(z.o) AS o, sum(z.mo) AS mo, sum(z.c) AS c, sum(z.mc) AS mc,
                        sum(z.uo) AS uo, sum(z.umo) AS umo, sum(z.uc) AS uc, sum(z.umc) AS umc
                   FROM (SELECT x.id, (x.k = 'open' AND NOT x.m)::int AS o, (x.k = 'open' AND x.m)::int AS mo,
                                (x.k = 'click' AND NOT x.m)::int AS c, (x.k = 'click' AND x.m)::int AS mc,
                                0 AS uo, 0 AS umo, 0 AS uc, 0 AS umc
                           FROM unnest(e_campaign, e_kind, e_machine) AS x(id, k, m)
                         UNION ALL SELECT id, 0, 0, 0, 0, 1, 0, 0, 0 FROM unnest(first_open) AS id
                         UNION ALL SELECT id, 0, 0, 0, 0, 0, 1, 0, 0 FROM unnest(first_machine_open) AS id
                         UNION ALL SELECT id, 0, 0, 0, 0, 0, 0, 1, 0 FROM unnest(first_click) AS id
                         UNION ALL SELECT id, 0, 0, 0, 0, 0, 0, 0, 1 FROM unnest(first_machine_click) AS id) z
                  GROUP BY z.id ORDER BY z.id) u
          WHERE s.campaign_id = u.id;
         UPDATE newsletter_campaign_links k SET clicks = k.clicks + u.c, machine_clicks = k.machine_clicks + u.mc
           FROM (SELECT x.id, x.i, count(*) FILTER (WHERE NOT x.m) AS c, count(*) FILTER (WHERE x.m) AS mc
                   FROM unnest(e_campaign, e_kind, e_link, e_machine) AS x(id, k, i, m)
                  WHERE x.k = 'click' GROUP BY x.id, x.i ORDER BY x.id, x.i) u
          WHERE k.campaign_id = u.id AND k.link_index = u.i;
         RETURN QUERY SELECT DISTINCT x.c, x.s FROM unnest(e_campaign, e_subscription) AS x(c, s);
       END $$`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP FUNCTION newsletter_tracking_write(bigint[], bigint[], bigint[], text[], int[], boolean[], text[], text[], timestamptz[], int)`,
    );
  }
}
