import type { Response } from 'express';

/** API.md §6: a strong ETag per version of an editable item. */
export function contentEtag(id: number, version: number): string {
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
export function setContentEtag(res: Response, item: { id: number; version: number }): void {
  res.setHeader('ETag', contentEtag(item.id, item.version));
}
