import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import {
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
  RouteParamtypes,
} from '@nestjs/common/internal';
import type { Fence } from './fence';

/*
 * What Nest records about a handler (its verb, its path, its parameters, its @HttpCode), read
 * where a route is declared: its problem statuses and body kind (route.decorator.ts), the
 * validated inputs of the OpenAPI document (openapi-inputs.ts), which POSTs honour an
 * Idempotency-Key and the status a replay answers (common/idempotency). Nest 12 keeps these keys in `@nestjs/common/internal`,
 * "not part of the public API", and offers no public way to ask which parameter is the body: every
 * such read goes through here. These are reads at declaration, not a fast path, so there is no
 * plain path to step aside to: a different version logs one warning at boot (checkReadFences),
 * fence.spec.ts fails on the upgrade, and a key shaped otherwise than this expects stops the
 * declaration with an error rather than documenting or reading bodies wrongly.
 */
export const NEST_METADATA: Fence = {
  name: "The reads of Nest's route metadata (src/common/internals/nest-metadata.ts)",
  kind: 'reads',
  writtenFor: { '@nestjs/common': '12.5.1' },
};

/** A handler parameter as the route needs it: what it is bound to, its position, its key. */
export interface HandlerArg {
  kind: 'body' | 'query' | 'param' | 'other';
  index: number;
  /** `@Param('id')`: one value rather than the DTO of them all. */
  data: unknown;
}

const KINDS = new Map<number, HandlerArg['kind']>([
  [RouteParamtypes.BODY, 'body'],
  [RouteParamtypes.QUERY, 'query'],
  [RouteParamtypes.PARAM, 'param'],
]);

/** `<paramtype>:<index>`, or `<factory id>__customRouteArgs__:<index>` for createParamDecorator's. */
const ARG_KEY = /^(.+):(\d+)$/;

/** The parameters `cls.prototype[name]` declares with Nest's parameter decorators. */
export function handlerArgs(cls: Function, name: string | symbol): HandlerArg[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, cls, name) ?? {}) as Record<string, { data?: unknown }>;
  return Object.entries(args).map(([key, arg]) => {
    const m = ARG_KEY.exec(key);
    if (!m || typeof arg !== 'object' || arg === null)
      throw new Error(
        `${cls.name}.${String(name)}: Nest's route argument "${key}" is not shaped as ${NEST_METADATA.name} expects`,
      );
    return { kind: KINDS.get(Number(m[1])) ?? 'other', index: Number(m[2]), data: arg.data };
  });
}

/** The HTTP verb of a route handler, or undefined for another method. */
export function handlerMethod(handler: Function): RequestMethod | undefined {
  return Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
}

/** The path (or paths) of a route handler relative to its controller, or undefined for another method. */
export function handlerPaths(handler: Function): string[] | undefined {
  const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
  return path === undefined ? undefined : [path].flat();
}

/** The path (or paths) `@Controller()` gives a controller class, or undefined for another class. */
export function controllerPaths(cls: Function): string[] | undefined {
  return handlerPaths(cls);
}

/** The status `@HttpCode()` gives a route handler, or undefined when it keeps Nest's default. */
export function handlerHttpCode(handler: Function): number | undefined {
  return Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
}
