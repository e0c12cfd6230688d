import type { Response } from 'express';

/** API.md §6: a strong ETag per version of an editable item (content, email templates). */
export function versionEtag(id: number, version: number): string {
  return `"${id}-${version}"`;
}

/**
 * True when an `If-Match` header allows a write to the item whose current ETag is `etag`
 * (RFC 9110 §13.1.1: `*`, or a list with the current strong tag; weak tags never match).
 * An absent header allows it: the check is opt-in for the client.
 */
export function ifMatchAllows(header: string | undefined, etag: string): boolean {
  if (header === undefined) return true;
  const tags = header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return tags.some((t) => t === '*' || t === etag);
}

/** Sets the ETag header of a response about this item. */
export function setVersionEtag(res: Response, item: { id: number; version: number }): void {
  res.setHeader('ETag', versionEtag(item.id, item.version));
}

/** The `ETag` response header of a route that answers an editable item (for `@Route` responses). */
export const ETAG_HEADER = {
  ETag: { description: 'Version of the item; send it back as If-Match', schema: { type: 'string' } },
};
