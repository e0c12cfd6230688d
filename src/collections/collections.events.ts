import { defineEvents, event } from '../common/outbox/events';

export interface CollectionEventPayload {
  id: number;
  slug: string;
}

export interface CollectionItemEventPayload {
  collectionId: number;
  contentId: number;
}

export interface CollectionItemAddedPayload extends CollectionItemEventPayload {
  position: number;
}

/** Events this module writes to the outbox. */
export const COLLECTION_EVENTS = defineEvents('collections', {
  created: event<CollectionEventPayload>('collection.created', 'A collection was created'),
  updated: event<CollectionEventPayload>('collection.updated', 'A collection changed (also when another is pinned)'),
  deleted: event<CollectionEventPayload>('collection.deleted', 'A collection was deleted; its content stays'),
  itemAdded: event<CollectionItemAddedPayload>('collection.item_added', 'Content was added to a collection'),
  itemRemoved: event<CollectionItemEventPayload>('collection.item_removed', 'Content was removed from a collection'),
});
