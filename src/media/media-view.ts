import type { MediaItemEntity } from './entities/media-item.entity';

/**
 * A media item as other modules and the mappers see it: links are absolute and resolved for
 * the configured storage. Content embeds these (MediaService.viewsByIds).
 */
export interface MediaView {
  id: number;
  /** The original's id (its own id for an original). */
  attachmentId: number;
  siteName: string;
  title: string;
  caption: string;
  description: string;
  altText: string;
  fileName: string;
  contentType: string;
  link: string;
  /** The original's link (its own link for an original). */
  originalUrl: string;
  width: number | null;
  height: number | null;
  /** Bytes. */
  filesize: number;
  createdAt: Date;
  isOriginal: boolean;
  isThumbnail: boolean;
}

export interface MediaTermRef {
  id: number;
  name: string;
  slug: string;
}

/** The v2 view: a view plus its storage key, terms and thumbnails. */
export interface MediaDetail extends MediaView {
  storageKey: string;
  updatedAt: Date;
  categories: MediaTermRef[];
  tags: MediaTermRef[];
  thumbnails: MediaView[];
}

export type LinkOf = (storageKey: string) => string;

/** `row.original` must be loaded (id and storageKey) for thumbnails. */
export function toMediaView(row: MediaItemEntity, siteName: string, linkOf: LinkOf): MediaView {
  const link = linkOf(row.storageKey);
  const isThumbnail = row.originalId !== null;
  return {
    id: row.id,
    attachmentId: row.originalId ?? row.id,
    siteName,
    title: row.title,
    caption: row.caption,
    description: row.description,
    altText: row.altText,
    fileName: row.fileName,
    contentType: row.contentType,
    link,
    originalUrl: isThumbnail && row.original ? linkOf(row.original.storageKey) : link,
    width: row.width,
    height: row.height,
    filesize: row.filesize,
    createdAt: row.createdAt,
    isOriginal: !isThumbnail,
    isThumbnail,
  };
}
