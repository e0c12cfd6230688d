import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../../database/sql';
import { MembershipStatus } from '../entities/membership.entity';

/**
 * The audience's set-based writes over many subscriptions at once, one statement each: bulk
 * actions over ids, a list's sync, a deletion with its suppression.
 */
@Injectable()
export class SubscriptionsBulkRepository {
  /** Unsubscribes these subscriptions from `listIds` (null: all); answers the subscriptions changed. */
  async unsubscribe(
    em: EntityManager,
    siteId: number,
    ids: number[],
    listIds: number[] | null,
    reason: string | null,
  ): Promise<number[]> {
    const { rows } = await sql<{ subscription_id: number }>(
      em,
      `UPDATE newsletter_memberships SET status = 'unsubscribed', unsubscribed_at = now(), updated_at = now(), reason = $4
       WHERE site_id = $1 AND subscription_id = ANY($2::bigint[]) AND status <> 'unsubscribed'
         AND ($3::bigint[] IS NULL OR list_id = ANY($3::bigint[]))
       RETURNING subscription_id`,
      [siteId, ids, listIds, reason],
      { bigints: ['subscription_id'] },
    );
    return [...new Set(rows.map((r) => r.subscription_id))];
  }

  /**
   * Adds these subscriptions to lists: `active` with consent, else `pending`. Never touches an
   * `unsubscribed` membership, nor an address that complained or is suppressed. Answers the
   * subscriptions that gained or activated a membership.
   */
  async addToLists(
    em: EntityManager,
    siteId: number,
    ids: number[],
    listIds: number[],
    consent: boolean,
  ): Promise<number[]> {
    const { rows } = await sql<{ subscription_id: number }>(
      em,
      `INSERT INTO newsletter_memberships AS m (subscription_id, list_id, site_id, status, subscribed_at)
       SELECT s.id, l.id, $1, CASE WHEN $4 THEN 'active' ELSE 'pending' END, CASE WHEN $4 THEN now() END
       FROM newsletter_subscriptions s CROSS JOIN unnest($3::bigint[]) AS l(id)
       WHERE s.site_id = $1 AND s.id = ANY($2::bigint[]) AND s.deliverability NOT IN ('complained', 'suppressed')
       ON CONFLICT (subscription_id, list_id) DO UPDATE SET status = 'active', subscribed_at = now(), updated_at = now()
         WHERE m.status = 'pending' AND $4
       RETURNING m.subscription_id`,
      [siteId, ids, listIds, consent],
      { bigints: ['subscription_id'] },
    );
    return [...new Set(rows.map((r) => r.subscription_id))];
  }

  /** Removes pending and active memberships (an `unsubscribed` one stays: it is the person's word). */
  async removeFromLists(em: EntityManager, siteId: number, ids: number[], listIds: number[]): Promise<number[]> {
    const { rows } = await sql<{ subscription_id: number }>(
      em,
      `DELETE FROM newsletter_memberships WHERE site_id = $1 AND subscription_id = ANY($2::bigint[])
         AND list_id = ANY($3::bigint[]) AND status <> 'unsubscribed' RETURNING subscription_id`,
      [siteId, ids, listIds],
      { bigints: ['subscription_id'] },
    );
    return [...new Set(rows.map((r) => r.subscription_id))];
  }

  /**
   * Sets the deliverability. While a complaint stands (the subscription is `complained`, or the
   * newsletter keeps the complaint by the address's hash: a key may have moved it before), only
   * `complained` and `suppressed` are given: the person's complaint is undone by the person alone.
   * Answers the subscriptions changed.
   */
  async setDeliverability(em: EntityManager, siteId: number, ids: number[], to: string): Promise<number[]> {
    const { rows } = await sql<{ id: number }>(
      em,
      `UPDATE newsletter_subscriptions s SET deliverability = $3, updated_at = now()
       WHERE s.site_id = $1 AND s.id = ANY($2::bigint[]) AND s.deliverability <> $3
         AND ($3 IN ('complained', 'suppressed') OR (s.deliverability <> 'complained' AND NOT EXISTS (
               SELECT 1 FROM newsletter_suppressions x
               WHERE x.site_id = $1 AND x.reason = 'complaint'
                 AND x.email_hash = encode(sha256(convert_to(s.email, 'UTF8')), 'hex'))))
       RETURNING id`,
      [siteId, ids, to],
      { bigints: ['id'] },
    );
    return rows.map((r) => r.id);
  }

  /** Deletes subscriptions (their memberships go with them); with `suppress`, their address hashes stay. */
  async deleteMany(em: EntityManager, siteId: number, ids: number[], suppress: boolean): Promise<number[]> {
    if (suppress) {
      await sql(
        em,
        `INSERT INTO newsletter_suppressions (site_id, email_hash, reason)
         SELECT site_id, encode(sha256(convert_to(email, 'UTF8')), 'hex'), 'deleted' FROM newsletter_subscriptions
         WHERE site_id = $1 AND id = ANY($2::bigint[]) ON CONFLICT DO NOTHING`,
        [siteId, ids],
      );
    }
    const { rows } = await sql<{ id: number }>(
      em,
      'DELETE FROM newsletter_subscriptions WHERE site_id = $1 AND id = ANY($2::bigint[]) RETURNING id',
      [siteId, ids],
      { bigints: ['id'] },
    );
    return rows.map((r) => r.id);
  }

  /** The ids of these addresses' subscriptions (made when missing, unless suppressed), for sync. */
  async ensureSubscriptions(em: EntityManager, siteId: number, emails: string[], source: string): Promise<number[]> {
    await sql(
      em,
      `INSERT INTO newsletter_subscriptions (site_id, email, source, manage_nonce)
       SELECT $1, e.email, $3, replace(gen_random_uuid()::text, '-', '')
       FROM unnest($2::text[]) AS e(email)
       WHERE NOT EXISTS (SELECT 1 FROM newsletter_suppressions x
                         WHERE x.site_id = $1 AND x.email_hash = encode(sha256(convert_to(e.email, 'UTF8')), 'hex'))
       ON CONFLICT (site_id, email) DO NOTHING`,
      [siteId, emails, source],
    );
    const { rows } = await sql<{ id: number }>(
      em,
      'SELECT id FROM newsletter_subscriptions WHERE site_id = $1 AND email = ANY($2::text[])',
      [siteId, emails],
      { bigints: ['id'] },
    );
    return rows.map((r) => r.id);
  }

  /** The status on a list of each of these subscriptions that has a membership there. */
  async membershipStates(em: EntityManager, listId: number, ids: number[]): Promise<Map<number, MembershipStatus>> {
    const { rows } = await sql<{ subscription_id: number; status: MembershipStatus }>(
      em,
      'SELECT subscription_id, status FROM newsletter_memberships WHERE list_id = $1 AND subscription_id = ANY($2::bigint[])',
      [listId, ids],
      { bigints: ['subscription_id'] },
    );
    return new Map(rows.map((r) => [r.subscription_id, r.status]));
  }

  /** Members of a list (pending or active) whose address is not in `emails`. */
  async membersOutside(em: EntityManager, listId: number, emails: string[]): Promise<number[]> {
    const { rows } = await sql<{ id: number }>(
      em,
      `SELECT s.id FROM newsletter_memberships m JOIN newsletter_subscriptions s ON s.id = m.subscription_id
       WHERE m.list_id = $1 AND m.status <> 'unsubscribed' AND NOT (s.email = ANY($2::text[]))`,
      [listId, emails],
      { bigints: ['id'] },
    );
    return rows.map((r) => r.id);
  }
}
