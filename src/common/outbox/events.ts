/**
 * A domain event a module declares in its `<module>.events.ts` (docs/modules.md): its name
 * (dot-separated, past tense), the module that emits it, what it means, and, as a type only,
 * the payload it carries. Webhook subscriptions name these events; the catalog lists them.
 */
export interface DomainEvent<P extends object = object> {
  readonly name: string;
  readonly module: string;
  readonly description: string;
  /** Type-level only: the payload's shape (never set). */
  readonly payload?: P;
}

/** An event before its module declares it with defineEvents(). */
export interface EventDraft<P extends object> {
  readonly name: string;
  readonly description: string;
  readonly payload?: P;
}

export function event<P extends object>(name: string, description: string): EventDraft<P> {
  return { name, description };
}

const CATALOG = new Map<string, DomainEvent>();

/**
 * Declares a module's events and adds them to the catalog. Only declared events can be
 * recorded: recordEvent() refuses any other, so an event cannot reach the outbox (or a
 * webhook) without a name, a description and a payload type in its module's events file.
 */
export function defineEvents<const T extends Record<string, EventDraft<object>>>(
  module: string,
  drafts: T,
): { readonly [K in keyof T]: T[K] extends EventDraft<infer P> ? DomainEvent<P> : never } {
  const declared: Record<string, DomainEvent> = {};
  for (const [key, draft] of Object.entries(drafts)) {
    const known = CATALOG.get(draft.name);
    if (known && known.module !== module) {
      throw new Error(`Event ${draft.name} is declared by both ${known.module} and ${module}`);
    }
    const declaredEvent: DomainEvent = Object.freeze({ name: draft.name, module, description: draft.description });
    CATALOG.set(draft.name, known ?? declaredEvent);
    declared[key] = known ?? declaredEvent;
  }
  return Object.freeze(declared) as never;
}

/** Every declared event, by name (the webhooks module validates subscriptions against it). */
export function eventCatalog(): ReadonlyMap<string, DomainEvent> {
  return CATALOG;
}

/** Whether this exact event object was declared through defineEvents(). */
export function isDeclared(e: DomainEvent): boolean {
  return CATALOG.get(e.name) === e;
}
