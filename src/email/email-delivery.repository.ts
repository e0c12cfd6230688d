import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { recordEvents } from '../common/outbox/record-event';
import { sql } from '../database/sql';
import { EMAIL_EVENTS } from './email.events';
import { DeliveryResult } from './email-transport';
import type { NewMessage } from './email.repository';
import { EmailMessageEntity } from './entities/email-message.entity';

/** Drops a message's body when the parameter `drop` names (a boolean) is true; a body-less copy keeps its nulls. */
const dropBody = (drop: string) => `html = CASE WHEN ${drop}::boolean THEN NULL ELSE m.html END,
           text = CASE WHEN ${drop}::boolean THEN NULL ELSE m.text END,
           body_dropped_at = CASE WHEN ${drop}::boolean AND m.html IS NOT NULL THEN now() ELSE m.body_dropped_at END`;

/** A message claimed this long ago by a worker that never finished (a crash) is claimed again. */
const STALE_CLAIM = '5 minutes';

/** What delivering a claimed message needs. */
export type ClaimedMessage = Pick<EmailMessageEntity, 'id'> & Omit<NewMessage, 'recipientKind' | 'templateId'>;

/** Message ids to deliver, grouped by site. */
export interface SiteMessages {
  site_id: number;
  ids: number[];
}

/**
 * The delivery job's statements (docs/email.md, "Delivery"): claims and outcomes set-based, a
 * statement per group of messages rather than one per message.
 */
@Injectable()
export class EmailDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Messages still `queued` a minute after they were recorded: they waited for an SMTP server. */
  queuedUnsent(): Promise<SiteMessages[]> {
    return this.bySite(
      `SELECT site_id, id FROM email_messages WHERE status = 'queued' AND created_at < now() - interval '1 minute'
        ORDER BY id LIMIT 10000`,
    );
  }

  /** Messages `sending` whose claim is older than STALE_CLAIM: their sender stopped. */
  abandonedClaims(): Promise<SiteMessages[]> {
    return this.bySite(
      `SELECT site_id, id FROM email_messages WHERE status = 'sending' AND claimed_at < now() - interval '${STALE_CLAIM}'
        ORDER BY claimed_at LIMIT 10000`,
    );
  }

  private async bySite(select: string): Promise<SiteMessages[]> {
    const { rows } = await sql<SiteMessages>(
      this.dataSource,
      `SELECT site_id, array_agg(id ORDER BY id) AS ids FROM (${select}) w GROUP BY site_id`,
      [],
      { bigints: ['site_id'] },
    );
    return rows;
  }

  /**
   * Claims the messages (`sites[i]`, `ids[i]`) still to send, or abandoned mid-send, and answers
   * what sending them needs, in one statement.
   */
  async claim(sites: number[], ids: number[]): Promise<ClaimedMessage[]> {
    const { rows } = await sql<ClaimedMessage>(
      this.dataSource,
      `UPDATE email_messages m SET status = 'sending', claimed_at = now(), attempts = attempts + 1, updated_at = now()
        FROM unnest($1::bigint[], $2::bigint[]) AS w(site_id, id)
        WHERE m.site_id = w.site_id AND m.id = w.id
          AND (m.status = 'queued' OR (m.status = 'sending' AND m.claimed_at < now() - interval '${STALE_CLAIM}'))
        RETURNING m.id, m.site_id AS "siteId", m.batch_id AS "batchId", m.recipient, m.from_header AS "fromHeader",
          m.reply_to AS "replyTo", m.to_header AS "toHeader", m.cc_header AS "ccHeader", m.subject, m.html, m.text,
          m.template_type AS "templateType", m.tags, m.extra_headers AS "extraHeaders",
          m.sealed_secrets AS "sealedSecrets", m.source, m.source_id AS "sourceId",
          m.source_item_id AS "sourceItemId"`,
      [sites, ids],
      { bigints: ['id', 'siteId', 'sourceId', 'sourceItemId'] },
    );
    return rows;
  }

  /**
   * Marks messages sent with the server's answer and message id; their sealed secrets go, and
   * their bodies too when none are kept (`dropBodies`: EMAIL_BODY_RETENTION_DAYS 0).
   */
  async markSent(
    em: EntityManager,
    ids: number[],
    responses: string[],
    messageIds: Array<string | null>,
    dropBodies = false,
  ): Promise<void> {
    await sql(
      em,
      `UPDATE email_messages m SET status = 'sent', sent_at = now(), smtp_response = u.response,
           smtp_message_id = u.message_id, error = NULL, claimed_at = NULL, sealed_secrets = NULL, updated_at = now(),
           ${dropBody('$4')}
          FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, response, message_id) WHERE m.id = u.id`,
      [ids, responses, messageIds, dropBodies],
    );
  }

  /** Marks messages failed for good, each with its reason; their sealed secrets go (and bodies, as markSent). */
  async markFailed(em: EntityManager, ids: number[], errors: string[], dropBodies = false): Promise<void> {
    await sql(
      em,
      `UPDATE email_messages m SET status = 'failed', failed_at = now(), error = u.error, claimed_at = NULL,
           sealed_secrets = NULL, updated_at = now(), ${dropBody('$3')}
          FROM unnest($1::bigint[], $2::text[]) AS u(id, error) WHERE m.id = u.id`,
      [ids, errors, dropBodies],
    );
  }

  /** Puts messages refused for now back in the queue, each with its reason. */
  async markDeferred(em: EntityManager, ids: number[], errors: string[]): Promise<void> {
    await sql(
      em,
      `UPDATE email_messages m SET status = 'queued', error = u.error, claimed_at = NULL, updated_at = now()
          FROM unnest($1::bigint[], $2::text[]) AS u(id, error) WHERE m.id = u.id`,
      [ids, errors],
    );
  }

  /** The account of a site. */
  async accountOfSite(em: EntityManager, siteId: number): Promise<number> {
    const { rows } = await sql<{ account_id: number }>(em, 'SELECT account_id FROM sites WHERE id = $1', [siteId], {
      bigints: ['account_id'],
    });
    return rows[0].account_id;
  }

  /**
   * Writes a group of answers set-based: one UPDATE per outcome (sent, failed, deferred) over
   * the group's ids, and one INSERT of the email.sent / email.failed events per site. A
   * campaign's copies settle hundreds a second: a statement or two per message was the send's
   * bottleneck (docs/email.md, "Delivery").
   */
  async settle(
    em: EntityManager,
    done: Array<[ClaimedMessage, DeliveryResult]>,
    lastTry: Map<number, boolean>,
    dropBodies: boolean,
  ) {
    const sent: Array<[ClaimedMessage, Extract<DeliveryResult, { ok: true }>]> = [];
    const failed: Array<[ClaimedMessage, string]> = [];
    const deferred: Array<[ClaimedMessage, string]> = [];
    for (const [m, r] of done) {
      if (r.ok) sent.push([m, r]);
      else if (r.permanent || lastTry.get(m.id)) failed.push([m, r.error]);
      else deferred.push([m, r.error]);
    }
    if (sent.length > 0)
      await this.markSent(
        em,
        sent.map(([m]) => m.id),
        sent.map(([, r]) => r.response.slice(0, 1000)),
        sent.map(([, r]) => r.messageId),
        dropBodies,
      );
    if (failed.length > 0)
      await this.markFailed(
        em,
        failed.map(([m]) => m.id),
        failed.map(([, error]) => error),
        dropBodies,
      );
    if (deferred.length > 0)
      await this.markDeferred(
        em,
        deferred.map(([m]) => m.id),
        deferred.map(([, error]) => error),
      );
    const payload = (m: ClaimedMessage) => ({
      messageId: m.id,
      batchId: m.batchId,
      to: m.recipient,
      templateType: m.templateType,
      tags: m.tags,
    });
    for (const siteId of new Set([...sent, ...failed].map(([m]) => m.siteId))) {
      const scope = { id: siteId, accountId: await this.accountOf(em, siteId) };
      await recordEvents(
        em,
        scope,
        EMAIL_EVENTS.sent,
        sent.filter(([m]) => m.siteId === siteId).map(([m, r]) => ({ ...payload(m), smtpMessageId: r.messageId })),
      );
      await recordEvents(
        em,
        scope,
        EMAIL_EVENTS.failed,
        failed.filter(([m]) => m.siteId === siteId).map(([m, error]) => ({ ...payload(m), error })),
      );
    }
  }

  private readonly accounts = new Map<number, number>();

  private async accountOf(em: EntityManager, siteId: number): Promise<number> {
    let accountId = this.accounts.get(siteId);
    if (accountId === undefined) {
      accountId = await this.accountOfSite(em, siteId);
      if (this.accounts.size > 10_000) this.accounts.clear();
      this.accounts.set(siteId, accountId);
    }
    return accountId;
  }
}
