import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { applyKeyset, KeysetColumn, keysetPage, Page } from '../../common/pagination/page';
import { sql } from '../../database/sql';
import { SeriesQueryDto } from '../dto/series.dto';
import { ENROLLMENT_STATUSES, EnrollmentStatus, SeriesEnrollmentEntity } from '../entities/series-enrollment.entity';
import { SeriesEntity } from '../entities/series.entity';
import { SubscriptionEntity } from '../entities/subscription.entity';

const NEWEST: KeysetColumn[] = [{ expr: 's.id', type: 'number' }];

/**
 * How far back each enrollment sweep looks before the last one: `now()` is a transaction's
 * start, so a membership activated by a transaction that committed after the last sweep may
 * carry an earlier time (imports and bulk actions commit in batches of seconds).
 */
const ENROLL_LOOKBACK = '15 minutes';

/** A due enrollment, claimed (row-locked) by a sweep, with what its mail needs. */
export interface DueEnrollment {
  id: number;
  siteId: number;
  siteName: string;
  accountId: number;
  seriesId: number;
  subscriptionId: number;
  stepId: number | null;
  email: string;
  name: string;
  manageNonce: string;
  deliverability: string;
  /** Still active on at least one of the series' trigger lists. */
  onList: boolean;
}

/** The series' raw SQL (docs/modules.md): sweeps over enrollments and grouped reads. */
@Injectable()
export class SeriesRepository {
  constructor(@InjectRepository(SeriesEntity) private readonly series: Repository<SeriesEntity>) {}

  /** The site's series, newest first; `status` filters them. */
  async list(siteId: number, query: SeriesQueryDto): Promise<Page<SeriesEntity>> {
    const qb = this.series.createQueryBuilder('s').where('s.site_id = :siteId', { siteId });
    if (query.status) qb.andWhere('s.status = :status', { status: query.status });
    return keysetPage(await applyKeyset(qb, NEWEST, query).getMany(), query.limit, (s) => [s.id]);
  }

  /** The series enrollments of an address's subscription in a site. */
  enrollmentsOfAddress(em: EntityManager, siteId: number, email: string): Promise<number> {
    return em
      .createQueryBuilder(SeriesEnrollmentEntity, 'e')
      .innerJoin(SubscriptionEntity, 's', 's.id = e.subscription_id')
      .where('s.site_id = :siteId AND s.email = :email', { siteId, email })
      .getCount();
  }

  /** Enrollments of each series by status. */
  async counts(em: EntityManager, seriesIds: number[]): Promise<Map<number, Record<EnrollmentStatus, number>>> {
    const out = new Map<number, Record<EnrollmentStatus, number>>();
    for (const id of seriesIds) out.set(id, { active: 0, completed: 0, stopped: 0 });
    if (seriesIds.length === 0) return out;
    const { rows } = await sql<{ series_id: number; status: EnrollmentStatus; n: number }>(
      em,
      `SELECT series_id, status, count(*)::int AS n FROM newsletter_series_enrollments
        WHERE series_id = ANY($1::bigint[]) GROUP BY series_id, status`,
      [seriesIds],
      { bigints: ['series_id'] },
    );
    for (const r of rows) if (ENROLLMENT_STATUSES.includes(r.status)) out.get(r.series_id)![r.status] = r.n;
    return out;
  }

  /** Which of `ids` are email templates of the site, with their type. */
  async templateTypes(em: EntityManager, siteId: number, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const { rows } = await sql<{ id: number; type: string }>(
      em,
      'SELECT id, type FROM email_templates WHERE site_id = $1 AND id = ANY($2::bigint[])',
      [siteId, ids],
      { bigints: ['id'] },
    );
    return new Map(rows.map((r) => [r.id, r.type]));
  }

  /** True when a series of the site is triggered by one of these lists (the enrollment hook). */
  async triggers(em: EntityManager, siteId: number, listIds: number[]): Promise<boolean> {
    if (listIds.length === 0) return false;
    const { rows } = await sql(
      em,
      'SELECT 1 FROM newsletter_series_lists WHERE list_id = ANY($2::bigint[]) AND site_id = $1 LIMIT 1',
      [siteId, listIds],
    );
    return rows.length > 0;
  }

  /**
   * The enrollment sweep, set-based so that mass writes (imports, syncs, bulk) cost one
   * statement, not a hook per row: every deliverable subscription whose membership of a trigger
   * list became active since the series was created (and since the last sweep, minus the
   * lookback) is enrolled once (ON CONFLICT DO NOTHING on series and subscription), its first
   * step due its delay after it joined. Answers how many were enrolled.
   */
  async enroll(em: EntityManager): Promise<number> {
    const { rows } = await sql<{ enrolled: number }>(
      em,
      `WITH swept AS (
         UPDATE newsletter_series s SET enrolled_through = now()
           FROM newsletter_series old WHERE old.id = s.id
         RETURNING s.id, s.site_id, s.created_at, old.enrolled_through AS since
       ),
       joined AS (
         SELECT DISTINCT ON (s.id, m.subscription_id) s.id AS series_id, s.site_id, m.subscription_id,
                m.subscribed_at
           FROM swept s
           JOIN newsletter_series_lists sl ON sl.series_id = s.id
           JOIN newsletter_memberships m ON m.list_id = sl.list_id AND m.status = 'active'
                AND m.subscribed_at >= s.created_at
                AND m.subscribed_at > s.since - interval '${ENROLL_LOOKBACK}'
           JOIN newsletter_subscriptions sub ON sub.id = m.subscription_id AND sub.deliverability = 'deliverable'
          ORDER BY s.id, m.subscription_id, m.subscribed_at
       ),
       made AS (
         INSERT INTO newsletter_series_enrollments
           (site_id, series_id, subscription_id, status, enrolled_at, next_step_id, next_due_at)
         SELECT j.site_id, j.series_id, j.subscription_id,
                CASE WHEN f.id IS NULL THEN 'completed' ELSE 'active' END, j.subscribed_at, f.id,
                j.subscribed_at + make_interval(secs => f.delay_seconds)
           FROM joined j
           LEFT JOIN LATERAL (
             SELECT st.id, st.delay_seconds FROM newsletter_series_steps st
              WHERE st.series_id = j.series_id ORDER BY st.position LIMIT 1
           ) f ON true
         ON CONFLICT (series_id, subscription_id) DO NOTHING
         RETURNING 1
       )
       SELECT count(*)::int AS enrolled FROM made`,
    );
    return rows[0].enrolled;
  }

  /**
   * Claims up to `limit` enrollments whose next step is due, of series that are not paused
   * (FOR UPDATE SKIP LOCKED: several instances share the work, none sends a step twice). The
   * series' row is held in KEY SHARE meanwhile: a PATCH or DELETE of it (FOR UPDATE) waits for
   * the batch, or the batch skips a series being edited, so the two never deadlock over its
   * steps and enrollments.
   */
  async claimDue(em: EntityManager, limit: number): Promise<DueEnrollment[]> {
    const { rows } = await sql<DueEnrollment>(
      em,
      `SELECT e.id, e.site_id AS "siteId", site.name AS "siteName", site.account_id AS "accountId",
              e.series_id AS "seriesId", e.subscription_id AS "subscriptionId", e.next_step_id AS "stepId",
              sub.email, sub.name, sub.manage_nonce AS "manageNonce", sub.deliverability,
              EXISTS (SELECT 1 FROM newsletter_series_lists sl
                        JOIN newsletter_memberships m ON m.list_id = sl.list_id
                             AND m.subscription_id = e.subscription_id AND m.status = 'active'
                       WHERE sl.series_id = e.series_id) AS "onList"
         FROM newsletter_series_enrollments e
         JOIN newsletter_series s ON s.id = e.series_id AND s.status = 'active'
         JOIN newsletter_subscriptions sub ON sub.id = e.subscription_id
         JOIN sites site ON site.id = e.site_id
        WHERE e.status = 'active' AND e.next_due_at <= now()
        ORDER BY e.next_due_at
        LIMIT $1
        FOR UPDATE OF e SKIP LOCKED FOR KEY SHARE OF s SKIP LOCKED`,
      [limit],
      { bigints: ['id', 'siteId', 'accountId', 'seriesId', 'subscriptionId', 'stepId'] },
    );
    return rows;
  }

  /** Records a step as sent to an enrollment; false when it already was (nothing to send). */
  async recordSend(em: EntityManager, e: DueEnrollment, stepId: number, position: number): Promise<number | null> {
    const { rows } = await sql<{ id: number }>(
      em,
      `INSERT INTO newsletter_series_sends (site_id, enrollment_id, step_id, position) VALUES ($1, $2, $3, $4)
       ON CONFLICT (enrollment_id, step_id) DO NOTHING RETURNING id`,
      [e.siteId, e.id, stepId, position],
      { bigints: ['id'] },
    );
    return rows[0]?.id ?? null;
  }

  async setSendMessage(em: EntityManager, sendId: number, messageId: number): Promise<void> {
    await sql(em, 'UPDATE newsletter_series_sends SET message_id = $2 WHERE id = $1', [sendId, messageId]);
  }

  /** After a send: the next step, due its delay from now, or `completed`. */
  async advance(
    em: EntityManager,
    enrollmentId: number,
    next: { id: number; delaySeconds: number } | null,
    sent: boolean,
  ): Promise<void> {
    await sql(
      em,
      `UPDATE newsletter_series_enrollments SET
         next_step_id = $2::bigint,
         next_due_at = CASE WHEN $2::bigint IS NULL THEN NULL ELSE now() + make_interval(secs => $3::int) END,
         status = CASE WHEN $2::bigint IS NULL THEN 'completed' ELSE 'active' END,
         last_sent_at = CASE WHEN $4 THEN now() ELSE last_sent_at END,
         steps_sent = steps_sent + CASE WHEN $4 THEN 1 ELSE 0 END,
         updated_at = now()
       WHERE id = $1`,
      [enrollmentId, next?.id ?? null, next?.delaySeconds ?? 0, sent],
    );
  }

  async stop(em: EntityManager, enrollmentId: number, reason: string): Promise<void> {
    await sql(
      em,
      `UPDATE newsletter_series_enrollments SET status = 'stopped', stopped_reason = $2, next_due_at = NULL,
         updated_at = now() WHERE id = $1`,
      [enrollmentId, reason],
    );
  }

  /** A step that failed to render waits and is tried again later (it never holds back the others). */
  async postpone(em: EntityManager, enrollmentId: number, seconds: number): Promise<void> {
    await sql(
      em,
      `UPDATE newsletter_series_enrollments SET next_due_at = now() + make_interval(secs => $2::int), updated_at = now()
        WHERE id = $1`,
      [enrollmentId, seconds],
    );
  }

  /**
   * After the steps of a series changed: each enrollment that is still going (or had
   * completed) gets the first step placed after every step it already received that still
   * exists, due its delay after the last send (or the joining). Steps already sent are never
   * sent again; edits apply only to the steps ahead.
   */
  async replan(em: EntityManager, seriesId: number): Promise<void> {
    await sql(
      em,
      `UPDATE newsletter_series_enrollments e SET
         next_step_id = nx.id,
         next_due_at = CASE WHEN nx.id IS NULL THEN NULL
                            ELSE COALESCE(e2.last_sent_at, e2.enrolled_at) + make_interval(secs => nx.delay_seconds) END,
         status = CASE WHEN nx.id IS NULL THEN 'completed' ELSE 'active' END,
         updated_at = now()
         FROM newsletter_series_enrollments e2
         LEFT JOIN LATERAL (
           SELECT max(st.position) AS position FROM newsletter_series_sends d
             JOIN newsletter_series_steps st ON st.id = d.step_id
            WHERE d.enrollment_id = e2.id
         ) done ON true
         LEFT JOIN LATERAL (
           SELECT st.id, st.delay_seconds FROM newsletter_series_steps st
            WHERE st.series_id = e2.series_id AND st.position > COALESCE(done.position, 0)
            ORDER BY st.position LIMIT 1
         ) nx ON true
        WHERE e.id = e2.id AND e2.series_id = $1 AND e2.status IN ('active', 'completed')`,
      [seriesId],
    );
  }

  /** When the next step of a running series falls due (the sweep schedules itself for it). */
  async nextDue(em: EntityManager): Promise<Date | null> {
    const { rows } = await sql<{ at: Date }>(
      em,
      `SELECT e.next_due_at AS at FROM newsletter_series_enrollments e
         JOIN newsletter_series s ON s.id = e.series_id AND s.status = 'active'
        WHERE e.status = 'active' AND e.next_due_at IS NOT NULL
        ORDER BY e.next_due_at LIMIT 1`,
    );
    return rows[0]?.at ?? null;
  }
}
