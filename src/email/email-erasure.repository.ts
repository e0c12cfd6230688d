import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../database/sql';
import { ERASED_FORM_SQL } from './bounces/erased-address';

/** Messages sent to an address, and the outbox events that name it (a user's erasure). */
@Injectable()
export class EmailErasureRepository {
  async countOfAddress(em: EntityManager, siteId: number, email: string): Promise<number> {
    const { rows } = await sql<{ n: number }>(
      em,
      'SELECT count(*)::int AS n FROM email_messages WHERE site_id = $1 AND recipient = $2',
      [siteId, email],
    );
    return rows[0].n;
  }

  /**
   * Erases an address from the site's mail: the messages sent to it are deleted, it is taken out
   * of the To and Cc headers of others' copies, and out of the email.* events that name it.
   */
  async eraseAddress(em: EntityManager, siteId: number, email: string): Promise<Record<string, number>> {
    // Mail to them, and the team's copies of what they wrote (contact alerts reply to them).
    const deleted = await sql(
      em,
      `DELETE FROM email_messages WHERE site_id = $1 AND (recipient = $2 OR position($2 in coalesce(reply_to, '')) > 0)`,
      [siteId, email],
    );
    const headers = await sql(
      em,
      `UPDATE email_messages SET to_header = replace(to_header, $2, '[erased]'),
         cc_header = replace(cc_header, $2, '[erased]'), updated_at = now()
       WHERE site_id = $1 AND (position($2 in to_header) > 0 OR position($2 in coalesce(cc_header, '')) > 0)`,
      [siteId, email],
    );
    const events = await sql(
      em,
      `UPDATE outbox_events SET payload = jsonb_set(payload, '{to}', '"[erased]"')
        WHERE site_id = $1 AND name IN ('email.sent', 'email.failed') AND payload->>'to' = $2`,
      [siteId, email],
    );
    const suppressionEvents = await sql(
      em,
      `UPDATE outbox_events SET payload = payload || '{"email": "[erased]", "note": null}'::jsonb
        WHERE site_id = $1 AND name IN ('email.suppression.created', 'email.suppression.lifted')
          AND payload->>'email' = $2`,
      [siteId, email],
    );
    // A suppression stays, by the address's hash (docs/deliverability.md, "Erasure"): it is the
    // person's wish not to be mailed. Nothing else of them is kept in it.
    await sql(
      em,
      `UPDATE email_suppressions SET email = ${ERASED_FORM_SQL('email')}, note = NULL, message_id = NULL,
         updated_at = now()
        WHERE site_id = $1 AND email = $2`,
      [siteId, email.toLowerCase()],
    );
    return {
      email_messages: deleted.rowCount + headers.rowCount,
      email_events: events.rowCount + suppressionEvents.rowCount,
    };
  }
}
