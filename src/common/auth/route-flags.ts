import { ExecutionContext, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * Route metadata read once per (controller, handler) and kept: the guards run on every request,
 * and reflect-metadata lookups were a measurable share of a cheap request.
 */
export class RouteFlagCache<T> {
  private readonly byClass = new WeakMap<Type, WeakMap<Function, T>>();

  constructor(private readonly read: (reflector: Reflector, targets: [Function, Type]) => T) {}

  get(reflector: Reflector, context: ExecutionContext): T {
    const cls = context.getClass();
    const handler = context.getHandler();
    let handlers = this.byClass.get(cls);
    if (!handlers) this.byClass.set(cls, (handlers = new WeakMap()));
    let flags = handlers.get(handler);
    if (flags === undefined) handlers.set(handler, (flags = this.read(reflector, [handler, cls])));
    return flags;
  }
}
