import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { applyKeyset, KeysetColumn, keysetPage, keysetParameters, Page } from '../../common/pagination/page';
import { sql } from '../../database/sql';
import { CampaignQueryDto } from '../dto/campaign.dto';
import { CampaignEntity } from '../entities/campaign.entity';
import type { Recipient } from './campaign-mail';

const NEWEST: KeysetColumn[] = [{ expr: 'c.id', type: 'number' }];

/** A member after a send's cursor, and whether the campaign mails it. */
export interface Candidate {
  sub: number;
  email: string | null;
  name: string;
  attributes: Record<string, unknown>;
  manage_nonce: string;
  /** Subscribed, deliverable and matching the campaign's attribute filter. */
  ok: boolean;
}

/** The campaigns' list and the send's statements (docs/newsletter.md, "Delivery"). */
@Injectable()
export class CampaignsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The site's campaigns, newest first; `status` filters them. */
  async list(siteId: number, query: CampaignQueryDto): Promise<Page<CampaignEntity>> {
    const qb = this.dataSource.manager.createQueryBuilder(CampaignEntity, 'c').where('c.site_id = :siteId', { siteId });
    if (query.status) qb.andWhere('c.status = :status', { status: query.status });
    qb.setParameters(keysetParameters(NEWEST, query));
    const rows = await applyKeyset(qb, NEWEST, query).getMany();
    return keysetPage(rows, query.limit, (c) => [c.id]);
  }

  /** Writes a recipients row per subscription not mailed yet; answers those subscriptions. */
  async addRecipients(em: EntityManager, campaignId: number, siteId: number, ids: number[]): Promise<Set<number>> {
    const { rows } = await sql<{ subscription_id: number }>(
      em,
      `INSERT INTO newsletter_campaign_recipients (campaign_id, subscription_id, site_id)
           SELECT $1, s, $2 FROM unnest($3::bigint[]) s
           ON CONFLICT DO NOTHING RETURNING subscription_id`,
      [campaignId, siteId, ids],
      { bigints: ['subscription_id'] },
    );
    return new Set(rows.map((r) => r.subscription_id));
  }

  /**
   * The next `size` members after the cursor: each list's active members come from its
   * membership index in subscription order (one range scan per list), merged and deduplicated,
   * with whether each is deliverable (and matches the attribute filter).
   */
  async candidates(em: EntityManager, c: CampaignEntity, size: number): Promise<Candidate[]> {
    const { rows } = await sql<Candidate>(
      em,
      `WITH candidates AS (
         SELECT DISTINCT m.subscription_id AS sub FROM unnest($1::bigint[]) AS l(id)
         CROSS JOIN LATERAL (
           SELECT subscription_id FROM newsletter_memberships
            WHERE list_id = l.id AND status = 'active' AND subscription_id > $2
            ORDER BY subscription_id LIMIT $3) m
         ORDER BY 1 LIMIT $3)
       SELECT c.sub, s.email, s.name, s.attributes, s.manage_nonce,
              (s.id IS NOT NULL AND s.deliverability = 'deliverable' AND ($4::jsonb IS NULL OR s.attributes @> $4::jsonb)) AS ok
         FROM candidates c LEFT JOIN newsletter_subscriptions s ON s.id = c.sub AND s.site_id = $5
        ORDER BY c.sub`,
      [c.listIds, c.sendCursor, size, c.attributeFilter ? JSON.stringify(c.attributeFilter) : null, c.siteId],
      { bigints: ['sub'] },
    );
    return rows;
  }

  /** The deliverable, active members of the campaign's lists that match its filter, each once. */
  async audienceSize(em: EntityManager, c: CampaignEntity): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      em,
      `SELECT count(*)::int AS n FROM newsletter_subscriptions s
        WHERE s.site_id = $1 AND s.deliverability = 'deliverable' AND ($3::jsonb IS NULL OR s.attributes @> $3::jsonb)
          AND EXISTS (SELECT 1 FROM newsletter_memberships m
                       WHERE m.subscription_id = s.id AND m.list_id = ANY($2::bigint[]) AND m.status = 'active')`,
      [c.siteId, c.listIds, c.attributeFilter ? JSON.stringify(c.attributeFilter) : null],
    );
    return rows[0].n;
  }

  /** The site's subscriptions of these ids, as a copy is made for them (a copy's body, mail-sources.ts). */
  async recipients(em: EntityManager, siteId: number, ids: number[]): Promise<Recipient[]> {
    const { rows } = await sql<Recipient & { manage_nonce: string }>(
      em,
      `SELECT id, email, name, attributes, manage_nonce FROM newsletter_subscriptions
        WHERE site_id = $1 AND id = ANY($2::bigint[])`,
      [siteId, ids],
      { bigints: ['id'] },
    );
    return rows.map(({ manage_nonce, ...r }) => ({ ...r, manageNonce: manage_nonce }));
  }

  /**
   * Deletes the recipient rows (and with them their raw opens and clicks) of campaigns whose send
   * ended before `cutoff`, at most `limit` (docs/deployment.md, "Storage and retention"): the
   * campaign's counters stay. Each ended campaign is read by its primary-key prefix.
   */
  async deleteOldRecipients(db: DataSource, cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await sql(
      db,
      `DELETE FROM newsletter_campaign_recipients r USING (
         SELECT campaign_id, subscription_id FROM newsletter_campaign_recipients
          WHERE campaign_id = ANY (ARRAY(SELECT id FROM newsletter_campaigns
                                          WHERE coalesce(sent_at, canceled_at) < $1))
            AND created_at < $1
          LIMIT $2) old
        WHERE r.campaign_id = old.campaign_id AND r.subscription_id = old.subscription_id`,
      [cutoff, limit],
    );
    return rowCount;
  }

  /** Campaigns being sent, of every site. */
  async sending(): Promise<Array<{ siteId: number; campaignId: number }>> {
    const { rows } = await sql<{ site_id: number; id: number }>(
      this.dataSource,
      `SELECT site_id, id FROM newsletter_campaigns WHERE status = 'sending' ORDER BY id LIMIT 10000`,
      [],
      { bigints: ['site_id', 'id'] },
    );
    return rows.map((r) => ({ siteId: r.site_id, campaignId: r.id }));
  }
}
