import { INestApplication, Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { ValidationTypes } from 'class-validator';
import { checkedRules, CheckedKind, isCheckedRule } from '../input/checked';
import { isPresenceCheck } from '../input/dto-rules';
import { ValidationRule, validationRules } from '../internals/class-validator-metadata';
import { handlerArgs } from '../internals/nest-metadata';
import { routeHandlers } from './openapi-handlers';
import { schemaRuleOf } from './openapi-rules';
import { ROUTE_OPTIONS, RouteOptions } from '../http/route.decorator';

/*
 * What the validators enforce on each operation's input, read from the metadata they run on:
 * class-validator's rules (its storage, read through src/common/internals/class-validator-metadata.ts),
 * the class @Type() gives a nested DTO (asked of class-transformer itself), and which class is a
 * body, a query or path parameters (Nest's route arguments, read through
 * src/common/internals/nest-metadata.ts); both fence what they read
 * (docs/openapi.md, "Rules from the validators").
 */

/** The validated classes of one operation: its body, its query and its path parameters. */
export interface OperationInputs {
  body: Type[];
  query: Type[];
  param: Type[];
}

/** What the validators say of one property. */
export interface PropertyRules {
  /** Validated whenever present: no @IsOptional / @OptionalNotNull / @ValidateIf. */
  required: boolean;
  /** @IsOptional(): null skips validation, so null is accepted. */
  nullable: boolean;
  /** The nested DTO (@ValidateNested with @Type). */
  nested?: Function;
  rules: ValidationRule[];
  /** Rules no schema keyword carries: sentences for the description. */
  described: string[];
  /** Rules that neither a schema nor a declared sentence covers (the build fails on them). */
  undeclared: string[];
  /** What the property is checked against beyond its schema (`x-sitebase-checked`). */
  checked: CheckedKind[];
}

/** The rules of every validated property of a class, inherited ones included, in declaration order. */
export function rulesOfClass(cls: Function): Map<string, PropertyRules> {
  const found = new Map<string, ValidationRule[]>();
  for (const m of validationRules(cls)) {
    if (m.type === ValidationTypes.WHITELIST) continue;
    const list = found.get(m.propertyName) ?? [];
    list.push(m);
    found.set(m.propertyName, list);
  }
  const result = new Map<string, PropertyRules>();
  for (const [property, rules] of found) result.set(property, rulesOfProperty(cls, property, rules));
  return result;
}

function rulesOfProperty(cls: Function, property: string, rules: ValidationRule[]): PropertyRules {
  const out: PropertyRules = { required: true, nullable: false, rules: [], described: [], undeclared: [], checked: [] };
  for (const declared of checkedRules(cls, property)) {
    out.described.push(declared.sentence);
    out.checked.push(declared.kind);
  }
  for (const m of rules) {
    if (isCheckedRule(m)) continue; // read above, with the rules of its class's ancestors
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      out.required = false;
      if (m.name === 'isOptional') out.nullable = true;
      else if (!isPresenceCheck(m.constraints?.[0])) out.undeclared.push('ValidateIf');
      continue;
    }
    if (m.type === ValidationTypes.NESTED_VALIDATION) {
      out.nested = nestedType(cls, property);
      if (!out.nested) out.undeclared.push('ValidateNested without @Type');
      continue;
    }
    if (m.type === ValidationTypes.IS_DEFINED) continue;
    out.rules.push(m);
    const rule = schemaRuleOf(m.name ?? m.type, m.constraints);
    if (!rule) out.undeclared.push(m.name ?? m.type);
    else if (rule.described) out.described.push(rule.described);
    if (rule?.checked) out.checked.push(rule.checked);
  }
  return out;
}

/**
 * The class @Type() gives a nested property, asked of class-transformer's public interface: an
 * empty object (or a list of one) is turned into an instance of it. Undefined without @Type().
 */
function nestedType(cls: Function, property: string): Function | undefined {
  for (const sample of [{}, [{}]]) {
    const built = plainToInstance(cls as Type, { [property]: sample }) as Record<string, unknown>;
    const value = built[property];
    const item: unknown = Array.isArray(value) ? value[0] : value;
    if (item !== null && typeof item === 'object' && item.constructor !== Object) return item.constructor;
  }
  return undefined;
}

/** Every handler's validated inputs, by operation id. */
export function operationInputs(
  app: INestApplication,
  operationId: (controller: string, method: string) => string,
): Map<string, OperationInputs> {
  const byOperation = new Map<string, OperationInputs>();
  for (const r of routeHandlers(app, operationId))
    byOperation.set(r.operationId, inputsOf(r.controller, r.method, r.handler));
  return byOperation;
}

function inputsOf(controller: Type, method: string, handler: Function): OperationInputs {
  const inputs: OperationInputs = { body: [], query: [], param: [] };
  const prototype = controller.prototype as object;
  const types = (Reflect.getMetadata('design:paramtypes', prototype, method) ?? []) as Type[];
  for (const arg of handlerArgs(controller, method)) {
    const type = types[arg.index];
    if (arg.kind === 'other' || arg.data !== undefined || !type || !hasRules(type)) continue;
    inputs[arg.kind].push(type);
  }
  const optional = (Reflect.getMetadata(ROUTE_OPTIONS, handler) as RouteOptions | undefined)?.body?.optional;
  if (optional) inputs.body.push(optional);
  return inputs;
}

function hasRules(type: Function): boolean {
  return validationRules(type).length > 0;
}
