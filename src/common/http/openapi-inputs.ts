import { INestApplication, Type } from '@nestjs/common';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { checkedRules, CheckedKind } from '../input/checked';
import { isPresenceCheck } from '../input/dto-rules';
import { schemaRuleOf } from './openapi-rules';
import { ROUTE_OPTIONS } from './route.decorator';

/*
 * What the validators enforce on each operation's input, read from the metadata they run on:
 * class-validator's rules, class-transformer's @Type for nested DTOs, Nest's route arguments
 * for which class is a body, a query or path parameters (docs/openapi.md, "Rules from the
 * validators").
 */

interface TypeStorage {
  findTypeMetadata(target: Function, property: string): { typeFunction(): unknown } | undefined;
}
// class-transformer keeps what @Type() says in a storage its index does not export.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TypeStorage };

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
  rules: ValidationMetadata[];
  /** Rules no schema keyword carries: sentences for the description. */
  described: string[];
  /** Rules that neither a schema nor a declared sentence covers (the build fails on them). */
  undeclared: string[];
  /** What the property is checked against beyond its schema (`x-sitebase-checked`). */
  checked: CheckedKind[];
}

/** The rules of every validated property of a class, inherited ones included, in declaration order. */
export function rulesOfClass(cls: Function): Map<string, PropertyRules> {
  const found = new Map<string, ValidationMetadata[]>();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false)) {
    if (m.type === ValidationTypes.WHITELIST) continue;
    const list = found.get(m.propertyName) ?? [];
    list.push(m);
    found.set(m.propertyName, list);
  }
  const result = new Map<string, PropertyRules>();
  for (const [property, rules] of found) result.set(property, rulesOfProperty(cls, property, rules));
  return result;
}

function rulesOfProperty(cls: Function, property: string, rules: ValidationMetadata[]): PropertyRules {
  const out: PropertyRules = { required: true, nullable: false, rules: [], described: [], undeclared: [], checked: [] };
  for (const declared of checkedRules(cls, property)) {
    out.described.push(declared.sentence);
    out.checked.push(declared.kind);
  }
  for (const m of rules) {
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      out.required = false;
      if (m.name === 'isOptional') out.nullable = true;
      else if (!isPresenceCheck(m.constraints?.[0])) out.undeclared.push('ValidateIf');
      continue;
    }
    if (m.type === ValidationTypes.NESTED_VALIDATION) {
      out.nested = defaultMetadataStorage.findTypeMetadata(cls, property)?.typeFunction() as Function | undefined;
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

/** Every handler's validated inputs, by operation id. */
export function operationInputs(
  app: INestApplication,
  operationId: (controller: string, method: string) => string,
): Map<string, OperationInputs> {
  const byOperation = new Map<string, OperationInputs>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const method of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[method];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        const apiOperation = Reflect.getMetadata('swagger/apiOperation', handler) as
          { operationId?: string } | undefined;
        const id = apiOperation?.operationId ?? operationId(controller.name, method);
        byOperation.set(id, inputsOf(controller, method, handler));
      }
    }
  }
  return byOperation;
}

function inputsOf(controller: Type, method: string, handler: Function): OperationInputs {
  const inputs: OperationInputs = { body: [], query: [], param: [] };
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
    string,
    { index: number; data?: unknown }
  >;
  const prototype = controller.prototype as object;
  const types = (Reflect.getMetadata('design:paramtypes', prototype, method) ?? []) as Type[];
  for (const [key, arg] of Object.entries(args)) {
    const kind = Number(key.split(':')[0]) as RouteParamtypes;
    const type = types[arg.index];
    if (arg.data !== undefined || !type || !hasRules(type)) continue;
    if (kind === RouteParamtypes.BODY) inputs.body.push(type);
    if (kind === RouteParamtypes.QUERY) inputs.query.push(type);
    if (kind === RouteParamtypes.PARAM) inputs.param.push(type);
  }
  const optionalBody = (Reflect.getMetadata(ROUTE_OPTIONS, handler) as { optionalBody?: Type } | undefined)
    ?.optionalBody;
  if (optionalBody) inputs.body.push(optionalBody);
  return inputs;
}

function hasRules(type: Function): boolean {
  return getMetadataStorage().getTargetValidationMetadatas(type, '', false, false).length > 0;
}
