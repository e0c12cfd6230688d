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

import { ValidateBy } from 'class-validator';
import { ValidationRule, validationRules } from '../internals/class-validator-metadata';
import { declareSchemaRule } from '../openapi/openapi-rules';

export type CheckedKind = 'other fields' | 'stored data' | 'time' | 'configuration' | 'credential';

export interface CheckedRule {
  kind: CheckedKind;
  sentence: string;
}

/** The name of the rule @Checked keeps among the property's validators. */
const CHECKED_RULE = 'sitebaseChecked';

/**
 * Declares a rule on a property that its validators cannot check alone (see the file's comment).
 * It is kept as a validator that accepts every value (the service enforces the rule) so that it
 * follows the property wherever class-validator's rules go: @nestjs/swagger's PartialType,
 * PickType and OmitType copy them to the class they make (an update body keeps its create's marks).
 */
export function Checked(kind: CheckedKind, sentence: string): PropertyDecorator {
  return ValidateBy({ name: CHECKED_RULE, constraints: [kind, sentence], validator: { validate: () => true } });
}

// What it says in the document (openapi-inputs.ts reads it through checkedRules, ancestors first).
declareSchemaRule(CHECKED_RULE, ([kind, sentence]) => ({
  described: sentence as string,
  checked: kind as CheckedKind,
}));

/** Whether a validation rule is a @Checked declaration (it says something only in the document). */
export const isCheckedRule = (m: ValidationRule): boolean => m.name === CHECKED_RULE;

const CHECKED_BODY = new Map<Function, CheckedRule[]>();

/**
 * Declares a rule on the body as a whole: the action it asks for needs the stored resource to be
 * in a state its schema cannot describe (a campaign needs a subject, a body and lists to be sent).
 * A class made from this one by PartialType and the like asks for another action: it is not copied.
 */
export function CheckedBody(kind: CheckedKind, sentence: string): ClassDecorator {
  return (target) => void CHECKED_BODY.set(target, [...(CHECKED_BODY.get(target) ?? []), { kind, sentence }]);
}

/** The rules declared on a property of `cls` (or on the class itself, for ''), inherited ones first. */
export function checkedRules(cls: Function, property: string): CheckedRule[] {
  const chain: Function[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c))
    chain.unshift(c);
  if (property === '') return chain.flatMap((c) => CHECKED_BODY.get(c) ?? []);
  // Each class's own rules, class by class: class-validator hides an inherited rule where a class
  // declares one of the same type on the property, and every @Checked is a custom rule.
  return chain.flatMap((c) =>
    validationRules(c)
      .filter((m) => m.target === c && m.propertyName === property && isCheckedRule(m))
      .map((m) => ({ kind: m.constraints[0] as CheckedKind, sentence: m.constraints[1] as string })),
  );
}
