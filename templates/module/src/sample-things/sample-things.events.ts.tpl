import { defineEvents, event } from '../common/outbox/events';
import { SampleThingStatus } from './entities/sample-thing.entity';

export interface SampleThingEventPayload {
  id: number;
  slug: string;
  status: SampleThingStatus;
}

/** Events this module writes to the outbox (docs/events.md). */
export const SAMPLE_THING_EVENTS = defineEvents('sample-things', {
  created: event<SampleThingEventPayload>('sample_thing.created', 'A sample thing was created'),
  updated: event<SampleThingEventPayload>('sample_thing.updated', 'A sample thing changed'),
  published: event<SampleThingEventPayload>('sample_thing.published', 'A sample thing became published'),
  // @if lifecycle
  archived: event<SampleThingEventPayload>('sample_thing.archived', 'A sample thing was archived'),
  // @end
  deleted: event<SampleThingEventPayload>('sample_thing.deleted', 'A sample thing was deleted'),
});
