import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sql } from '../../database/sql';
import { ImportEntity } from '../entities/import.entity';

/** One valid row, ready for staging. */
export interface StagedRow {
  rowNo: number;
  email: string;
  /** '' for none. */
  name: string;
  /** The attributes as JSON text, `{}` for none. */
  attributes: string;
}

export interface BatchCounts {
  rows: number;
  created: number;
  updated: number;
}

/**
 * Takes the import's next staged chunk out of staging, skipping one another worker holds: the
 * chunk's deletion is the batch's source, so a batch that commits is never taken again, and a
 * job that runs again resumes where the last one stopped.
 */
const TAKE_CHUNK = `chunk AS (
         DELETE FROM newsletter_import_chunks c
         WHERE (c.import_id, c.chunk_no) = (
           SELECT import_id, chunk_no FROM newsletter_import_chunks WHERE import_id = $1
           ORDER BY chunk_no LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING c.row_nos, c.emails, c.names, c.attributes
       ),
       raw AS (
         SELECT r.* FROM chunk, unnest(chunk.row_nos, chunk.emails, chunk.names, chunk.attributes)
           AS r(row_no, email, name, attributes)
       )`;

/** The hex SHA-256 of an address, as `emailHash` computes it in subscription-writer.ts. */
const HASH_OF = (email: string) => `encode(sha256(convert_to(${email}, 'UTF8')), 'hex')`;

/**
 * An import's SQL (docs/newsletter.md, "Import"): the valid rows are staged as chunks (one row
 * of arrays per batch, one insert each), then each chunk is taken out of staging and upserted by
 * one statement. Never one round trip per row.
 */
@Injectable()
export class ImportRepository {
  /** The account's imports queued or running (every site), counted up to `atMost`. */
  async unfinishedOfAccount(em: EntityManager, accountId: number, atMost: number): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      em,
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM sites s JOIN newsletter_imports i ON i.site_id = s.id AND i.status IN ('queued', 'running')
          WHERE s.account_id = $1 LIMIT $2) u`,
      [accountId, atMost],
    );
    return rows[0].n;
  }

  /** Adds a batch's counts to the import's (the skipped: rows neither created nor updated). */
  async addCounts(em: EntityManager, importId: number, c: BatchCounts): Promise<void> {
    await em
      .createQueryBuilder()
      .update(ImportEntity)
      .set({
        rowsDone: () => `rows_done + ${c.rows}`,
        created: () => `created + ${c.created}`,
        updated: () => `updated + ${c.updated}`,
        skipped: () => `skipped + ${Math.max(0, c.rows - c.created - c.updated)}`,
      })
      .where('id = :id', { id: importId })
      .execute();
  }

  /** This transaction commits without waiting for its WAL to reach the disk (safe to lose: see the caller). */
  async commitWithoutWaitingForDisk(em: EntityManager): Promise<void> {
    await sql(em, 'SET LOCAL synchronous_commit TO off');
  }

  /**
   * The import is `completed` once no chunk is left, counting one another runner holds in an
   * open transaction (its deletion is not committed): two runners of one import (a recovered
   * job beside a slow one) never say completed while a chunk is still being upserted.
   */
  async complete(em: EntityManager, importId: number): Promise<boolean> {
    const { rowCount } = await sql(
      em,
      `UPDATE newsletter_imports SET status = 'completed', finished_at = now(), updated_at = now()
        WHERE id = $1 AND status IN ('queued', 'running')
          AND NOT EXISTS (SELECT 1 FROM newsletter_import_chunks WHERE import_id = $1)`,
      [importId],
    );
    return rowCount > 0;
  }

  /**
   * Imports whose rows stopped moving for `stalledSeconds` while queued or running (their job's
   * instance was killed): marked as touched now, and answered, so the caller queues them again.
   */
  async takeStalled(em: EntityManager, stalledSeconds: number, limit: number): Promise<number[]> {
    const { rows } = await sql<{ id: number }>(
      em,
      `UPDATE newsletter_imports SET updated_at = now() WHERE id IN (
         SELECT id FROM newsletter_imports
          WHERE status IN ('queued', 'running') AND updated_at < now() - make_interval(secs => $1)
          ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [stalledSeconds, limit],
      { bigints: ['id'] },
    );
    return rows.map((r) => r.id);
  }

  async stage(em: EntityManager, importId: number, chunkNo: number, rows: StagedRow[]): Promise<void> {
    if (rows.length === 0) return;
    await sql(
      em,
      `INSERT INTO newsletter_import_chunks (import_id, chunk_no, row_nos, emails, names, attributes)
       VALUES ($1, $2, $3::int[], $4::text[], $5::text[], $6::jsonb[])`,
      [
        importId,
        chunkNo,
        rows.map((r) => r.rowNo),
        rows.map((r) => r.email),
        rows.map((r) => r.name),
        rows.map((r) => r.attributes),
      ],
    );
  }

  /**
   * Upserts the next staged chunk of a subscribe import: repeated addresses count once
   * (the last row wins), suppressed addresses and those that complained or left one of the
   * lists are left alone, known ones are updated (name and attributes: all of the file's with
   * `overwrite`, else only what they lack), and each joins the lists (`active` with consent,
   * else `pending`; a pending one becomes active with consent; an unsubscribed one never moves).
   */
  async subscribeBatch(
    em: EntityManager,
    imp: { id: number; siteId: number; listIds: number[]; consent: boolean; overwrite: boolean },
  ): Promise<BatchCounts> {
    const { rows } = await sql<BatchCounts>(
      em,
      `WITH ${TAKE_CHUNK},
       batch AS (SELECT DISTINCT ON (email) * FROM raw ORDER BY email, row_no DESC),
       blocked AS (
         SELECT b.email FROM batch b
         WHERE EXISTS (SELECT 1 FROM newsletter_suppressions x
                       WHERE x.site_id = $2 AND x.email_hash = ${HASH_OF('b.email')})
            OR EXISTS (
              SELECT 1 FROM newsletter_subscriptions s
              WHERE s.site_id = $2 AND s.email = b.email
                AND (s.deliverability IN ('complained', 'suppressed') OR EXISTS (
                  SELECT 1 FROM newsletter_memberships m
                  WHERE m.subscription_id = s.id AND m.status = 'unsubscribed' AND m.list_id = ANY($3::bigint[]))))
       ),
       up AS (
         INSERT INTO newsletter_subscriptions AS s
           (site_id, email, name, attributes, source, manage_nonce, consent_at, consent_list_ids, consent_wording)
         SELECT $2, b.email, b.name, b.attributes, 'import', replace(gen_random_uuid()::text, '-', ''),
                CASE WHEN $4::boolean THEN now() END, CASE WHEN $4::boolean THEN $3::bigint[] END,
                CASE WHEN $4::boolean THEN 'Consent collected by the site (import)' END
         FROM batch b WHERE NOT EXISTS (SELECT 1 FROM blocked k WHERE k.email = b.email)
         -- In address order, as every worker inserts: two chunks that share addresses wait on
         -- each other in one order and cannot deadlock.
         ORDER BY b.email
         ON CONFLICT (site_id, email) DO UPDATE SET
           name = CASE WHEN excluded.name <> '' AND ($5::boolean OR s.name = '') THEN excluded.name ELSE s.name END,
           attributes = CASE WHEN $5::boolean THEN s.attributes || excluded.attributes
                             ELSE excluded.attributes || s.attributes END,
           updated_at = now()
         RETURNING s.id, (s.xmax = 0) AS inserted
       ),
       mem AS (
         INSERT INTO newsletter_memberships AS m (subscription_id, list_id, site_id, status, subscribed_at)
         SELECT up.id, l.id, $2, CASE WHEN $4::boolean THEN 'active' ELSE 'pending' END,
                CASE WHEN $4::boolean THEN now() END
         FROM up CROSS JOIN unnest($3::bigint[]) AS l(id)
         ON CONFLICT (subscription_id, list_id) DO UPDATE SET status = 'active', subscribed_at = now(), updated_at = now()
           WHERE m.status = 'pending' AND $4::boolean
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM raw)::int AS rows,
              (SELECT count(*) FROM up WHERE inserted)::int AS created,
              (SELECT count(*) FROM up WHERE NOT inserted)::int AS updated,
              (SELECT count(*) FROM mem)::int AS memberships`,
      [imp.id, imp.siteId, imp.listIds, imp.consent, imp.overwrite],
    );
    return rows[0];
  }

  /**
   * A blocklist batch: each address's hash is suppressed (created: newly blocked), and a known
   * subscription becomes `suppressed` and leaves every list (updated).
   */
  async blocklistBatch(em: EntityManager, imp: { id: number; siteId: number }): Promise<BatchCounts> {
    const { rows } = await sql<BatchCounts>(
      em,
      `WITH ${TAKE_CHUNK},
       batch AS (SELECT DISTINCT email, ${HASH_OF('email')} AS email_hash FROM raw),
       sup AS (
         INSERT INTO newsletter_suppressions (site_id, email_hash, reason)
         SELECT $2, email_hash, 'blocklist' FROM batch ORDER BY email_hash ON CONFLICT DO NOTHING RETURNING 1
       ),
       subs AS (
         UPDATE newsletter_subscriptions s SET deliverability = 'suppressed', updated_at = now()
         FROM batch b WHERE s.site_id = $2 AND s.email = b.email AND s.deliverability <> 'suppressed'
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
      [imp.id, imp.siteId],
    );
    return rows[0];
  }

  /**
   * Retention: at most `limit` staged chunks of imports that finished (a completed import has
   * none left; a failed one may). Imports are few rows; the chunks' key leads with import_id.
   */
  async deleteFinishedChunks(db: DataSource, limit: number): Promise<number> {
    const { rowCount } = await sql(
      db,
      `DELETE FROM newsletter_import_chunks WHERE ctid = ANY(ARRAY(
         SELECT c.ctid FROM newsletter_imports i
           JOIN newsletter_import_chunks c ON c.import_id = i.id
          WHERE i.status IN ('completed', 'failed') LIMIT $1))`,
      [limit],
    );
    return rowCount;
  }
}
