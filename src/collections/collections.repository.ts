import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { sql } from '../database/sql';

/** The collection queries that outgrow a repository method (docs/modules.md). */
@Injectable()
export class CollectionsRepository {
  /** Unpins the site's pinned collection other than `exceptId`; answers what it unpinned. */
  async unpinOthers(
    em: EntityManager,
    siteId: number,
    exceptId: number | null,
  ): Promise<Array<{ id: number; slug: string }>> {
    const { rows } = await sql<{ id: number; slug: string }>(
      em,
      `UPDATE collections SET pinned = false, updated_at = now()
        WHERE site_id = $1 AND pinned AND id IS DISTINCT FROM $2 RETURNING id, slug`,
      [siteId, exceptId],
      { bigints: ['id'] },
    );
    return rows;
  }
}
