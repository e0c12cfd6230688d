import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sql } from '../database/sql';

/**
 * The email module's retention statements (docs/deployment.md, "Storage and retention"): each
 * touches at most `limit` rows, over an index, in one short statement.
 */
@Injectable()
export class EmailRetentionRepository {
  /**
   * Drops the HTML and text of sent or failed messages recorded before `cutoff`, oldest first
   * (the partial index of kept bodies); the row stays, `body_dropped_at` says when.
   */
  async dropBodies(db: DataSource, cutoff: Date, now: Date, limit: number): Promise<number> {
    const { rowCount } = await sql(
      db,
      `UPDATE email_messages m SET html = NULL, text = NULL, body_dropped_at = $2
        WHERE m.id = ANY (ARRAY(SELECT id FROM email_messages
                                 WHERE html IS NOT NULL AND created_at < $1 AND status IN ('sent', 'failed')
                                 ORDER BY created_at LIMIT $3))`,
      [cutoff, now, limit],
    );
    return rowCount;
  }

  /**
   * Deletes messages recorded before `cutoff` (their bounce records go with them): of the `limit`
   * oldest by id (ids grow with time), those. No index but the primary key is needed, and a run
   * with nothing to delete reads `limit` index entries.
   */
  async deleteMessages(db: DataSource, cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await sql(
      db,
      `DELETE FROM email_messages WHERE id = ANY (ARRAY(
         SELECT id FROM (SELECT id, created_at FROM email_messages ORDER BY id LIMIT $2) oldest WHERE created_at < $1))`,
      [cutoff, limit],
    );
    return rowCount;
  }
}
