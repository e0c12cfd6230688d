import { EntityManager } from 'typeorm';
import { defineEvents, DomainEvent, event, eventCatalog, isDeclared } from './events';
import { recordEvent } from './record-event';

describe('declared events', () => {
  const SPEC_EVENTS = defineEvents('spec', {
    happened: event<{ id: number }>('spec.happened', 'Something happened in this spec'),
  });

  it('defineEvents adds each event to the catalog with its module', () => {
    expect(eventCatalog().get('spec.happened')).toEqual({
      name: 'spec.happened',
      module: 'spec',
      description: 'Something happened in this spec',
    });
    expect(isDeclared(SPEC_EVENTS.happened)).toBe(true);
  });

  it('refuses the same name from two modules', () => {
    expect(() => defineEvents('other', { happened: event('spec.happened', 'Claimed twice') })).toThrow(
      'Event spec.happened is declared by both spec and other',
    );
  });

  it('recordEvent refuses an event that no events file declared, before touching the database', async () => {
    const inserted: unknown[] = [];
    const em = { insert: (...args: unknown[]) => Promise.resolve(inserted.push(args)) } as unknown as EntityManager;
    const forged: DomainEvent<{ id: number }> = { name: 'spec.forged', module: 'spec', description: 'Never declared' };
    await expect(recordEvent(em, { accountId: 1 }, forged, { id: 1 })).rejects.toThrow(
      "Event spec.forged is not declared in a module's events file",
    );
    expect(inserted).toEqual([]);
    await recordEvent(em, { accountId: 1, id: 2 }, SPEC_EVENTS.happened, { id: 3 });
    expect(inserted).toEqual([
      [expect.anything(), { accountId: 1, siteId: 2, name: 'spec.happened', payload: { id: 3 } }],
    ]);
  });
});
