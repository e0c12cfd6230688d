/** Events this module writes to the outbox (API.md §6). */
export const MEDIA_CREATED = 'media.created';
export const MEDIA_UPDATED = 'media.updated';
export const MEDIA_DELETED = 'media.deleted';

export interface MediaCreatedPayload {
  id: number;
  fileName: string;
  contentType: string;
  filesize: number;
  thumbnailIds: number[];
}

export interface MediaUpdatedPayload {
  id: number;
  fields: string[];
}

export interface MediaDeletedPayload {
  id: number;
  thumbnailIds: number[];
}
