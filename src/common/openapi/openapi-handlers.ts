import { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
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
 * Every route handler of every module's controllers, as the document names them (a route's own
 * `operationId`, else `operationId(controller, method)`): what the document's derived parts walk.
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
        const apiOperation = Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as
          { operationId?: string } | undefined;
        yield {
          module,
          controller,
          method,
          handler,
          operationId: apiOperation?.operationId ?? operationId(controller.name, method),
        };
      }
    }
  }
}
