/*
 * Rules a request field is held to beyond what its schema can say (docs/openapi.md, "Checked
 * beyond the schema"): against the other fields of the body, against stored data (an id that
 * must name a list of this site), against the time of the request or against the server's
 * configuration and the network (a webhook host must resolve to public addresses), or against the
 * caller's credential (an order made with a key names its customer). The service enforces them
 * (a 400 naming the field); this declaration puts them in the document: a sentence in the
 * field's description and `x-sitebase-checked` listing the kinds, so a client or a generated
 * test knows which valid-looking values the server may still refuse, and why.
 */

export type CheckedKind = 'other fields' | 'stored data' | 'time' | 'configuration' | 'credential';

export interface CheckedRule {
  kind: CheckedKind;
  sentence: string;
}

const CHECKED = new Map<Function, Map<string, CheckedRule[]>>();

/** Declares a rule on a property that its validators cannot check alone (see the file's comment). */
export function Checked(kind: CheckedKind, sentence: string): PropertyDecorator {
  return (target, property) => add((target as { constructor: Function }).constructor, String(property), kind, sentence);
}

/**
 * Declares a rule on the body as a whole: the action it asks for needs the stored resource to be
 * in a state its schema cannot describe (a campaign needs a subject, a body and lists to be sent).
 */
export function CheckedBody(kind: CheckedKind, sentence: string): ClassDecorator {
  return (target) => add(target, '', kind, sentence);
}

function add(cls: Function, property: string, kind: CheckedKind, sentence: string): void {
  const own = CHECKED.get(cls) ?? new Map<string, CheckedRule[]>();
  CHECKED.set(cls, own);
  own.set(property, [...(own.get(property) ?? []), { kind, sentence }]);
}

/** The rules declared on a property of `cls` (or on the class itself, for ''), inherited ones first. */
export function checkedRules(cls: Function, property: string): CheckedRule[] {
  const chain: Function[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c))
    chain.unshift(c);
  return chain.flatMap((c) => CHECKED.get(c)?.get(property) ?? []);
}
