import { RequestMethod, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ROUTE_OPTIONS, RouteOptions } from '../../src/common/http/route.decorator';
import { controllerPaths, handlerMethod, handlerPaths } from '../../src/common/internals/nest-metadata';
import type { TestApp } from './app';

/** A route's handler as its source declares it: what a failure names so a reader finds the line to edit. */
export interface DeclaredRoute {
  /** `ContentController.create`. */
  handler: string;
  /** Its @Route options; undefined for a handler without @Route. */
  options?: RouteOptions;
}

/**
 * Every route handler of the app by the label the tests give an operation of the document
 * (`POST /api/v2/sites/{siteName}/content`), read from Nest's module container.
 */
export function declaredRoutes(t: TestApp): Map<string, DeclaredRoute> {
  const found = new Map<string, DeclaredRoute>();
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const cls = wrapper.metatype as Type;
      const base = controllerPaths(cls)?.[0] ?? '';
      const proto = cls.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const fn = proto[name];
        if (name === 'constructor' || typeof fn !== 'function') continue;
        const path = handlerPaths(fn)?.[0];
        const method = handlerMethod(fn);
        if (path === undefined || method === undefined) continue;
        const full = `/${base}/${path}`
          .replace(/\/+/g, '/')
          .replace(/(.)\/$/, '$1')
          .replace(/:([A-Za-z_]+)/g, '{$1}');
        found.set(`${RequestMethod[method]} ${full}`, {
          handler: `${cls.name}.${name}`,
          options: Reflect.getMetadata(ROUTE_OPTIONS, fn) as RouteOptions | undefined,
        });
      }
    }
  }
  return found;
}
