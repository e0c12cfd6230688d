import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../database/sql';

/** One valid row, ready for staging. */
export interface StagedRow {
  rowNo: number;
  email: string;
  emailHash: string;
  name: string | null;
  attributes: Record<string, unknown> | null;
}

export interface BatchCounts {
  rows: number;
  created: number;
  updated: number;
}

/**
 * An import's SQL (docs/newsletter.md, "Import"): rows are staged with one multi-row insert per
 * batch, then each batch is taken out of staging and upserted by one statement (its deletion is
 * the batch's source, so a batch that commits is never taken again, and a job that runs twice
 * resumes where the first stopped). Never one round trip per row.
 */
@Injectable()
export class ImportRepository {
  async stage(em: EntityManager, importId: number, rows: StagedRow[]): Promise<void> {
    if (rows.length === 0) return;
    await sql(
      em,
      `INSERT INTO newsletter_import_rows (import_id, row_no, email, email_hash, name, attributes)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::jsonb[])`,
      [
        importId,
        rows.map((r) => r.rowNo),
        rows.map((r) => r.email),
        rows.map((r) => r.emailHash),
        rows.map((r) => r.name),
        rows.map((r) => (r.attributes === null ? null : JSON.stringify(r.attributes))),
      ],
    );
  }

  /**
   * Upserts the next `limit` staged rows of a subscribe import: repeated addresses count once
   * (the last row wins), suppressed addresses and those that complained or left one of the
   * lists are left alone, known ones are updated (name and attributes: all of the file's with
   * `overwrite`, else only what they lack), and each joins the lists (`active` with consent,
   * else `pending`; a pending one becomes active with consent; an unsubscribed one never moves).
   */
  async subscribeBatch(
    em: EntityManager,
    imp: { id: number; siteId: number; listIds: number[]; consent: boolean; overwrite: boolean },
    limit: number,
  ): Promise<BatchCounts> {
    const { rows } = await sql<BatchCounts>(
      em,
      `WITH raw AS (
         DELETE FROM newsletter_import_rows r
         WHERE r.import_id = $1 AND r.row_no IN (
           SELECT row_no FROM newsletter_import_rows WHERE import_id = $1 ORDER BY row_no LIMIT $2)
         RETURNING r.row_no, r.email, r.email_hash, r.name, r.attributes
       ),
       batch AS (SELECT DISTINCT ON (email) * FROM raw ORDER BY email, row_no DESC),
       blocked AS (
         SELECT b.email FROM batch b
         WHERE EXISTS (SELECT 1 FROM newsletter_suppressions x WHERE x.site_id = $3 AND x.email_hash = b.email_hash)
            OR EXISTS (
              SELECT 1 FROM newsletter_subscriptions s
              WHERE s.site_id = $3 AND s.email = b.email
                AND (s.deliverability IN ('complained', 'suppressed') OR EXISTS (
                  SELECT 1 FROM newsletter_memberships m
                  WHERE m.subscription_id = s.id AND m.status = 'unsubscribed' AND m.list_id = ANY($4::bigint[]))))
       ),
       up AS (
         INSERT INTO newsletter_subscriptions AS s
           (site_id, email, name, attributes, source, manage_nonce, consent_at, consent_list_ids, consent_wording)
         SELECT $3, b.email, coalesce(b.name, ''), coalesce(b.attributes, '{}'::jsonb), 'import',
                replace(gen_random_uuid()::text, '-', ''),
                CASE WHEN $5::boolean THEN now() END, CASE WHEN $5::boolean THEN $4::bigint[] END,
                CASE WHEN $5::boolean THEN 'Consent collected by the site (import)' END
         FROM batch b WHERE NOT EXISTS (SELECT 1 FROM blocked k WHERE k.email = b.email)
         ON CONFLICT (site_id, email) DO UPDATE SET
           name = CASE WHEN excluded.name <> '' AND ($6::boolean OR s.name = '') THEN excluded.name ELSE s.name END,
           attributes = CASE WHEN $6::boolean THEN s.attributes || excluded.attributes
                             ELSE excluded.attributes || s.attributes END,
           updated_at = now()
         RETURNING s.id, (s.xmax = 0) AS inserted
       ),
       mem AS (
         INSERT INTO newsletter_memberships AS m (subscription_id, list_id, site_id, status, subscribed_at)
         SELECT up.id, l.id, $3, CASE WHEN $5::boolean THEN 'active' ELSE 'pending' END,
                CASE WHEN $5::boolean THEN now() END
         FROM up CROSS JOIN unnest($4::bigint[]) AS l(id)
         ON CONFLICT (subscription_id, list_id) DO UPDATE SET status = 'active', subscribed_at = now(), updated_at = now()
           WHERE m.status = 'pending' AND $5::boolean
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM raw)::int AS rows,
              (SELECT count(*) FROM up WHERE inserted)::int AS created,
              (SELECT count(*) FROM up WHERE NOT inserted)::int AS updated,
              (SELECT count(*) FROM mem)::int AS memberships`,
      [imp.id, limit, imp.siteId, imp.listIds, imp.consent, imp.overwrite],
    );
    return rows[0];
  }

  /**
   * A blocklist batch: each address's hash is suppressed (created: newly blocked), and a known
   * subscription becomes `suppressed` and leaves every list (updated).
   */
  async blocklistBatch(em: EntityManager, imp: { id: number; siteId: number }, limit: number): Promise<BatchCounts> {
    const { rows } = await sql<BatchCounts>(
      em,
      `WITH raw AS (
         DELETE FROM newsletter_import_rows r
         WHERE r.import_id = $1 AND r.row_no IN (
           SELECT row_no FROM newsletter_import_rows WHERE import_id = $1 ORDER BY row_no LIMIT $2)
         RETURNING r.email, r.email_hash
       ),
       batch AS (SELECT DISTINCT email, email_hash FROM raw),
       sup AS (
         INSERT INTO newsletter_suppressions (site_id, email_hash, reason)
         SELECT $3, email_hash, 'blocklist' FROM batch ON CONFLICT DO NOTHING RETURNING 1
       ),
       subs AS (
         UPDATE newsletter_subscriptions s SET deliverability = 'suppressed', updated_at = now()
         FROM batch b WHERE s.site_id = $3 AND s.email = b.email AND s.deliverability <> 'suppressed'
         RETURNING s.id
       ),
       mem AS (
         UPDATE newsletter_memberships m SET status = 'unsubscribed', unsubscribed_at = now(), updated_at = now(),
           reason = 'blocklist'
         FROM subs WHERE m.subscription_id = subs.id AND m.status <> 'unsubscribed'
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM raw)::int AS rows, (SELECT count(*) FROM sup)::int AS created,
              (SELECT count(*) FROM subs)::int AS updated, (SELECT count(*) FROM mem)::int AS memberships`,
      [imp.id, limit, imp.siteId],
    );
    return rows[0];
  }
}
