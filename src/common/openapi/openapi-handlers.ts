import { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { handlerMethod } from '../internals/nest-metadata';

type Module = NonNullable<ReturnType<ModulesContainer['get']>>;

/** One route handler of the app, with the operation id the document gives it. */
export interface RouteHandler {
  module: Module;
  controller: Type;
  method: string;
  handler: Function;
  operationId: string;
}

/**
 * Every route handler of every module's controllers, as the document names them
 * (`operationId(controller, method)`: the handler's name): what the document's derived parts walk.
 */
export function* routeHandlers(
  app: INestApplication,
  operationId: (controller: string, method: string) => string,
): Generator<RouteHandler> {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const method of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[method];
        if (typeof handler !== 'function' || handlerMethod(handler) === undefined) continue;
        yield { module, controller, method, handler, operationId: operationId(controller.name, method) };
      }
    }
  }
}

/**
 * Stops the document on two handlers that give one operation id (two controllers' `list`): a
 * client would call one of them, and the derived parts, keyed by id, would describe the other.
 */
export function checkOperationIds(
  app: INestApplication,
  operationId: (controller: string, method: string) => string,
): void {
  const seen = new Map<string, string>();
  for (const r of routeHandlers(app, operationId)) {
    const where = `${r.controller.name}.${r.method}`;
    const other = seen.get(r.operationId);
    if (other && other !== where)
      throw new Error(`${where} and ${other} give one operation id, ${r.operationId}: rename one handler`);
    seen.set(r.operationId, where);
  }
}
