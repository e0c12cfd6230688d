import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sql } from '../database/sql';

/** A stored file as the files middleware serves it. */
export interface StoredFile {
  id: number;
  content_type: string;
  file_name: string;
  filesize: number;
}

/** A category or tag of a media item. */
export interface MediaTermRow {
  media_id: number;
  id: number;
  name: string;
  slug: string;
}

/** The media queries that outgrow a repository method (docs/modules.md): hot paths and link tables. */
@Injectable()
export class MediaRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The file a public path names; every file request asks, so one indexed lookup, no entity. */
  async fileByKey(key: string): Promise<StoredFile | null> {
    const { rows } = await sql<StoredFile>(
      this.dataSource,
      'SELECT id, content_type, file_name, filesize FROM media_items WHERE storage_key = $1',
      [key],
      { bigints: ['id', 'filesize'] },
    );
    return rows[0] ?? null;
  }

  /**
   * Which of these ids are media items of the site, kept until `em`'s transaction ends: FOR KEY
   * SHARE makes a delete of one of them wait for that transaction (and a delete already under
   * way answers the row as gone), so an attachment is never written after its media's
   * `media.deleted` was handled. In id order, so two callers lock alike.
   */
  async idsInSite(em: EntityManager, siteId: number, ids: number[]): Promise<Set<number>> {
    const { rows } = await sql<{ id: number }>(
      em,
      'SELECT id FROM media_items WHERE site_id = $1 AND id = ANY($2::bigint[]) ORDER BY id FOR KEY SHARE',
      [siteId, ids],
      { bigints: ['id'] },
    );
    return new Set(rows.map((r) => r.id));
  }

  /** The terms (categories or tags, through their link table) of these items, by name. */
  async termsOf(
    link: 'media_item_categories' | 'media_item_tags',
    column: 'category_id' | 'tag_id',
    terms: 'media_categories' | 'media_tags',
    mediaIds: number[],
  ): Promise<MediaTermRow[]> {
    const { rows } = await sql<MediaTermRow>(
      this.dataSource,
      `SELECT l.media_id, t.id, t.name, t.slug FROM ${link} l JOIN ${terms} t ON t.id = l.${column}
        WHERE l.media_id = ANY($1::bigint[]) ORDER BY t.name, t.id`,
      [mediaIds],
      { bigints: ['media_id', 'id'] },
    );
    return rows;
  }
}
