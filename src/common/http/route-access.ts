import { RequestMethod, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiSecurity } from '@nestjs/swagger';
import {
  AccountAdmin,
  Public,
  ROUTE_PERMISSION,
  ROUTE_PUBLISHABLE,
  SessionAllowed,
  SessionOnly,
} from '../auth/decorators';
import {
  defaultPermission,
  isPermission,
  Permission,
  PermissionGroup,
  PUBLISHABLE_PERMISSIONS,
} from '../auth/permissions';
import { handlerMethod } from '../internals/nest-metadata';
import type { RouteAuth, RouteOptions } from './route.decorator';
import type { RouteHandler } from './route-problems';

/*
 * Who may call a route, from its @Route declaration (docs/foundation.md, "Principals and the
 * guard"): the guard's metadata and the document's security together, the permission a key
 * needs, and whether a publishable key counts there.
 */

/** The document's field for a route's permission, on every operation a key may call (docs/openapi.md). */
export const PERMISSION_EXTENSION = 'x-sitebase-permission';

/** The document's field on every operation a publishable key may call. */
export const PUBLISHABLE_EXTENSION = 'x-sitebase-publishable';

/** Auths under which a key may call the route, and so needs a permission. */
const KEY_AUTHS = new Set<RouteAuth>(['key', 'account-key', 'legacy-key', 'optional-key', 'session']);

// Made per route: swagger's security decorators share their array between the targets of one instance.
const keySchemes = () => [ApiSecurity('apiKey'), ApiBearerAuth('bearer')];

export function authDecorators(auth: RouteAuth): MethodDecorator[] {
  switch (auth) {
    case 'key':
      return keySchemes();
    case 'account-key':
      return [AccountAdmin(), ...keySchemes()];
    case 'legacy-key':
      return [ApiSecurity('apiKey')];
    case 'optional-key':
      // `{}` last: the OpenAPI way to say "or no credential".
      return [Public(), ...keySchemes(), ApiSecurity({})];
    case 'session':
      return [SessionAllowed(), ...keySchemes()];
    case 'user':
      return [SessionOnly()];
    case 'public':
      return [Public()];
  }
}

/**
 * Resolves the permission of a route a key may call, once, at start-up: a key route whose
 * controller has no group and that names none stops the app here (as a missing @Route does).
 * Answers whether the route took its controller's group.
 */
export function declarePermission(
  target: Function,
  name: string,
  descriptor: PropertyDescriptor,
  options: RouteOptions,
  group: PermissionGroup | undefined,
): boolean {
  if (!KEY_AUTHS.has(options.auth)) return false;
  const method = RequestMethod[handlerMethod(descriptor.value as RouteHandler) as RequestMethod];
  const permission = options.permission ?? (group ? defaultPermission(group, method) : undefined);
  if (!isPermission(permission))
    throw new Error(
      `${target.name}.${name} takes a key but needs no known permission: give its controller a group ` +
        `(ApiController's permissions) or its @Route a permission`,
    );
  const proto = target.prototype as object;
  SetMetadata(ROUTE_PERMISSION, permission)(proto, name, descriptor);
  ApiExtension(PERMISSION_EXTENSION, permission)(proto, name, descriptor);
  return options.permission === undefined;
}

/**
 * Whether a publishable key counts on the route, once, at start-up: every optional-key route (a
 * published read or a public form), and the routes that say `publishable` — a public route meant
 * for a browser (subscribe, sign-in) or a key route reading what PUBLISHABLE_PERMISSIONS name —
 * or the app stops here. Elsewhere a publishable key is refused, or reads as no key on a public route.
 */
export function declarePublishable(
  target: Function,
  name: string,
  descriptor: PropertyDescriptor,
  options: RouteOptions,
): void {
  const proto = target.prototype as object;
  if (options.publishable && options.auth !== 'public') {
    const method = RequestMethod[handlerMethod(descriptor.value as RouteHandler) as RequestMethod];
    const permission = Reflect.getMetadata(ROUTE_PERMISSION, descriptor.value as object) as Permission | undefined;
    if (options.auth !== 'key' || method !== 'GET' || !permission || !PUBLISHABLE_PERMISSIONS.includes(permission))
      throw new Error(
        `${target.name}.${name} says publishable, which only a public route or a key route reading ` +
          `${PUBLISHABLE_PERMISSIONS.join(', ')} may`,
      );
  } else if (!options.publishable && options.auth !== 'optional-key') return;
  SetMetadata(ROUTE_PUBLISHABLE, true)(proto, name, descriptor);
  ApiExtension(PUBLISHABLE_EXTENSION, true)(proto, name, descriptor);
}
