import { eventsOf } from './content.events';

describe('content events of a change', () => {
  it.each([
    ['created', null, 'draft', ['content.created']],
    ['created', null, 'published', ['content.created', 'content.published']],
    ['created', null, 'scheduled', ['content.created']],
    ['updated', 'published', 'published', ['content.updated']],
    ['published', 'draft', 'published', ['content.published']],
    ['published', 'scheduled', 'published', ['content.published']],
    ['scheduled', 'draft', 'scheduled', ['content.updated']],
    ['unpublished', 'published', 'draft', ['content.unpublished']],
    ['unpublished', 'scheduled', 'draft', ['content.updated']],
    ['archived', 'published', 'archived', ['content.updated', 'content.unpublished']],
    ['archived', 'draft', 'archived', ['content.updated']],
    ['restored', 'published', 'published', ['content.updated']],
  ] as const)('%s (%s -> %s) emits %j', (action, before, after, expected) => {
    expect(eventsOf(action, before, after).map((e) => e.name)).toEqual(expected);
  });
});
