import { defineEvents, event } from '../common/outbox/events';

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

/** Events this module writes to the outbox. */
export const MEDIA_EVENTS = defineEvents('media', {
  created: event<MediaCreatedPayload>('media.created', 'A file was uploaded (with its thumbnails)'),
  updated: event<MediaUpdatedPayload>('media.updated', 'A media item’s fields changed'),
  deleted: event<MediaDeletedPayload>('media.deleted', 'A media item and its thumbnails were deleted'),
});
