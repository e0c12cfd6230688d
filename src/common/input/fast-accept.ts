import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';

/** The class-validator storage calls this module makes (public at run time, not in its typings). */
interface Storage {
  getTargetValidationMetadatas(
    target: Function,
    schema: string,
    always: boolean,
    strictGroups: boolean,
    groups?: string[],
  ): ValidationMetadata[];
  groupByPropertyName(metadata: ValidationMetadata[]): Record<string, ValidationMetadata[]>;
  getTargetValidatorConstraints(target: Function): ConstraintMetadata[];
}

interface Rule {
  meta: ValidationMetadata;
  constraints: ConstraintMetadata[];
}

interface PropertyRules {
  name: string;
  conditions: ValidationMetadata[];
  /** `@IsDefined()` first, then every other rule, as class-validator runs them. */
  rules: Rule[];
}

/** Says whether an instance passes every rule of its class; false means "ask class-validator". */
export type AcceptCheck = (entity: Record<string, unknown>) => boolean;

const compiled = new WeakMap<Function, AcceptCheck | null>();

/**
 * A yes-only answer to "does class-validator find nothing wrong with this instance?", for the
 * validation pipe's common case (docs/performance.md, "Params and queries that pass"). It runs the class's own
 * rules — the same constraint objects, with the same arguments, in the same order that
 * class-validator's executor uses, under the options of this app's pipe (whitelist, unknown
 * properties refused, no groups) — and answers true only when every one passes. Anything it
 * does not follow (nested or promise rules, `each`, groups, `always`, async constraints, a
 * constraint that answers a promise) makes it answer false, and the caller then runs
 * class-validator, which alone words the errors. So it never accepts what class-validator
 * refuses; it only skips building error objects, promises and the executor's bookkeeping when
 * nothing is wrong.
 */
export function acceptCheckFor(type: Function): AcceptCheck | null {
  let check = compiled.get(type);
  if (check === undefined) {
    check = compile(type);
    compiled.set(type, check);
  }
  return check;
}

function compile(type: Function): AcceptCheck | null {
  const storage = getMetadataStorage() as unknown as Storage;
  // What the executor asks for with the pipe's options: no groups, not `always`, not strict.
  const metadata = storage.getTargetValidationMetadatas(type, '', false, false, undefined);
  // No rules: class-validator would answer "an unknown value" (or nothing): its call.
  if (metadata.length === 0) return null;
  const properties: PropertyRules[] = [];
  for (const [name, metas] of Object.entries(storage.groupByPropertyName(metadata))) {
    const property: PropertyRules = { name, conditions: [], rules: [] };
    const defined: Rule[] = [];
    for (const meta of metas) {
      if (meta.each || meta.always || (meta.groups && meta.groups.length > 0)) return null;
      switch (meta.type) {
        case ValidationTypes.WHITELIST:
          break;
        case ValidationTypes.CONDITIONAL_VALIDATION:
          property.conditions.push(meta);
          break;
        case ValidationTypes.IS_DEFINED:
        case ValidationTypes.CUSTOM_VALIDATION: {
          const constraints = storage.getTargetValidatorConstraints(meta.constraintCls);
          if (constraints.some((c) => c.async)) return null;
          (meta.type === ValidationTypes.IS_DEFINED ? defined : property.rules).push({ meta, constraints });
          break;
        }
        default:
          return null;
      }
    }
    property.rules = [...defined, ...property.rules];
    properties.push(property);
  }
  const known = new Set(properties.map((p) => p.name));
  const targetName = type.name;
  return (entity) => {
    // whitelist + forbidNonWhitelisted: a property without rules is an error.
    for (const key of Object.keys(entity)) if (!known.has(key)) return false;
    for (const property of properties) {
      const value = entity[property.name];
      if (!property.conditions.every((c) => (c.constraints[0] as (o: object, v: unknown) => boolean)(entity, value)))
        continue;
      for (const { meta, constraints } of property.rules) {
        if (meta.validateIf && !meta.validateIf(entity, value)) continue;
        for (const c of constraints) {
          const valid: unknown = c.instance.validate(value, {
            targetName,
            property: meta.propertyName,
            object: entity,
            value,
            constraints: meta.constraints,
          });
          // A promise is class-validator's to wait for; a falsy answer is its to word.
          if (valid !== true) {
            if (valid instanceof Promise) valid.catch(() => undefined);
            return false;
          }
        }
      }
    }
    return true;
  };
}
