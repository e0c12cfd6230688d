import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sql } from '../../database/sql';
import type { BounceKind, SuppressionReason } from '../entities/email-bounce.entity';
import { erasedForm } from './erased-address';

/** What a report needs of the message it names. */
export interface ReportedMessage {
  id: number;
  siteId: number;
  recipient: string;
  tags: string[];
  /** The Message-ID it was sent with, without angle brackets. */
  smtpMessageId: string | null;
}

export interface NewBounce {
  siteId: number;
  messageId: number;
  recipient: string;
  kind: BounceKind;
  source: string;
  status: string | null;
  diagnostic: string | null;
}

/** The SQL of bounces, complaints and suppressions (docs/deliverability.md). */
@Injectable()
export class BouncesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async message(em: EntityManager, id: number): Promise<ReportedMessage | null> {
    const { rows } = await sql<ReportedMessage>(
      em,
      `SELECT id, site_id AS "siteId", recipient, tags, smtp_message_id AS "smtpMessageId"
         FROM email_messages WHERE id = $1`,
      [id],
      { bigints: ['id', 'siteId'] },
    );
    const m = rows[0];
    if (!m) return null;
    return { ...m, smtpMessageId: m.smtpMessageId?.replace(/^<|>$/g, '') ?? null };
  }

  /**
   * The message sent with this Message-ID (given with or without its angle brackets) to this
   * recipient: a provider's event names both, and a guessed id alone suppresses nobody. Null
   * when none, or when two copies match (an id is unique per copy; two is not ours to choose).
   */
  async messageBySmtpId(em: EntityManager, smtpMessageId: string, recipient: string): Promise<number | null> {
    const bare = smtpMessageId.replace(/^<|>$/g, '');
    const { rows } = await sql<{ id: number }>(
      em,
      `SELECT id FROM email_messages
        WHERE smtp_message_id = ANY($1::text[]) AND lower(recipient) = lower($2) LIMIT 2`,
      [[bare, `<${bare}>`], recipient],
      { bigints: ['id'] },
    );
    return rows.length === 1 ? rows[0].id : null;
  }

  /** Records a report; false when this message already has one of this kind (a report sent twice). */
  async insertBounce(em: EntityManager, b: NewBounce): Promise<boolean> {
    const { rowCount } = await sql(
      em,
      `INSERT INTO email_bounces (site_id, message_id, recipient, kind, source, status, diagnostic)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (message_id, kind) DO NOTHING`,
      [b.siteId, b.messageId, b.recipient, b.kind, b.source, b.status, b.diagnostic],
    );
    return rowCount > 0;
  }

  /** Soft bounces of an address of the site within the last `days` days. */
  async softBounces(em: EntityManager, siteId: number, recipient: string, days: number): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      em,
      `SELECT count(*)::int AS n FROM email_bounces
        WHERE site_id = $1 AND recipient = $2 AND kind = 'soft' AND created_at > now() - make_interval(days => $3)`,
      [siteId, recipient, days],
    );
    return rows[0].n;
  }

  /**
   * Suppresses an address of the site; a complaint outranks a bounce or an operator's entry
   * (never the other way).
   * Answers whether anything changed.
   */
  async suppress(
    em: EntityManager,
    siteId: number,
    email: string,
    reason: SuppressionReason,
    messageId: number | null,
  ): Promise<boolean> {
    const { rowCount } = await sql(
      em,
      `INSERT INTO email_suppressions (site_id, email, reason, message_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (site_id, email) DO UPDATE SET reason = EXCLUDED.reason, message_id = EXCLUDED.message_id,
         note = NULL, updated_at = now()
       WHERE email_suppressions.reason <> 'complained' AND EXCLUDED.reason = 'complained'`,
      [siteId, email, reason, messageId],
    );
    return rowCount > 0;
  }

  /**
   * The site's suppressed addresses among these (lower-cased), with their reason: by the address,
   * or by its hash where its owner was erased (erased-address.ts); a complaint wins.
   */
  async suppressed(em: EntityManager, siteId: number, emails: string[]): Promise<Map<string, SuppressionReason>> {
    if (emails.length === 0) return new Map();
    const forms = new Map<string, string>();
    for (const e of emails) forms.set(e, e).set(erasedForm(e), e);
    const { rows } = await sql<{ email: string; reason: SuppressionReason }>(
      em,
      `SELECT email, reason FROM email_suppressions WHERE site_id = $1 AND email = ANY($2::text[])`,
      [siteId, [...forms.keys()]],
    );
    const found = new Map<string, SuppressionReason>();
    for (const r of rows) {
      const email = forms.get(r.email)!;
      if (found.get(email) !== 'complained') found.set(email, r.reason);
    }
    return found;
  }
}
