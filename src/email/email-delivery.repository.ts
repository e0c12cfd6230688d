import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { recordEvents } from '../common/outbox/record-event';
import { sql } from '../database/sql';
import { EMAIL_EVENTS } from './email.events';
import type { NewMessage } from './email.repository';
import { DeliveryResult } from './email-transport';
import { EmailMessageEntity } from './entities/email-message.entity';

/** What delivering a claimed message needs. */
export type Claimed = Pick<EmailMessageEntity, 'id'> & Omit<NewMessage, 'recipientKind' | 'templateId'>;

/**
 * What the delivery job's answers write (EmailDeliveryJob): each message's outcome and its
 * email.sent / email.failed event, in the group transaction the job opens.
 */
@Injectable()
export class EmailDeliveryRepository {
  /**
   * Writes a group of answers set-based: one UPDATE per outcome (sent, failed, deferred) over
   * the group's ids, and one INSERT of the email.sent / email.failed events per site. A
   * campaign's copies settle hundreds a second: a statement or two per message was the send's
   * bottleneck (docs/email.md, "Delivery").
   */
  async settle(em: EntityManager, done: Array<[Claimed, DeliveryResult]>, lastTry: Map<number, boolean>) {
    const sent: Array<[Claimed, Extract<DeliveryResult, { ok: true }>]> = [];
    const failed: Array<[Claimed, string]> = [];
    const deferred: Array<[Claimed, string]> = [];
    for (const [m, r] of done) {
      if (r.ok) sent.push([m, r]);
      else if (r.permanent || lastTry.get(m.id)) failed.push([m, r.error]);
      else deferred.push([m, r.error]);
    }
    if (sent.length > 0)
      await sql(
        em,
        `UPDATE email_messages m SET status = 'sent', sent_at = now(), smtp_response = u.response,
           smtp_message_id = u.message_id, error = NULL, claimed_at = NULL, sealed_secrets = NULL, updated_at = now()
          FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, response, message_id) WHERE m.id = u.id`,
        [sent.map(([m]) => m.id), sent.map(([, r]) => r.response.slice(0, 1000)), sent.map(([, r]) => r.messageId)],
      );
    if (failed.length > 0)
      await sql(
        em,
        `UPDATE email_messages m SET status = 'failed', failed_at = now(), error = u.error, claimed_at = NULL,
           sealed_secrets = NULL, updated_at = now()
          FROM unnest($1::bigint[], $2::text[]) AS u(id, error) WHERE m.id = u.id`,
        [failed.map(([m]) => m.id), failed.map(([, error]) => error)],
      );
    if (deferred.length > 0)
      await sql(
        em,
        `UPDATE email_messages m SET status = 'queued', error = u.error, claimed_at = NULL, updated_at = now()
          FROM unnest($1::bigint[], $2::text[]) AS u(id, error) WHERE m.id = u.id`,
        [deferred.map(([m]) => m.id), deferred.map(([, error]) => error)],
      );
    const payload = (m: Claimed) => ({
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
      const { rows } = await sql<{ account_id: number }>(em, 'SELECT account_id FROM sites WHERE id = $1', [siteId], {
        bigints: ['account_id'],
      });
      accountId = rows[0].account_id;
      if (this.accounts.size > 10_000) this.accounts.clear();
      this.accounts.set(siteId, accountId);
    }
    return accountId;
  }
}
