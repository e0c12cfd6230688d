import { PublicReadFlag } from '../http/public-read-cache';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ForbiddenProblem, NotFoundProblem, UnauthorizedProblem, ValidationProblem } from '../errors/problems';
import { parseId } from '../input/dto-rules';
import type { SiteContext } from '../tenancy/site-context';
import {
  ACCOUNT_ADMIN,
  ALLOWED_DURING_DELETION,
  PUBLIC_ROUTE,
  ROUTE_PERMISSION,
  ROUTE_PUBLISHABLE,
  SESSION_ALLOWED,
  SESSION_ONLY,
} from './decorators';
import {
  ANONYMOUS,
  AuthenticatedRequest,
  Principal,
  PublishableKeyPrincipal,
  SITE_NAME_PATTERN,
  SiteDirectory,
} from './principal';
import { RouteFlagCache } from './route-flags';
import { grants, needsCurrentSecret, Permission } from './permissions';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

interface RouteFlags {
  isPublic: boolean;
  sessionAllowed: boolean;
  sessionOnly: boolean;
  accountAdmin: boolean;
  allowedDuringDeletion: boolean;
  /** What a key needs here (declared by @Route, resolved by ApiController); null: no key route. */
  permission: Permission | null;
  /** A publishable key counts here (derived by @Route). */
  publishable: boolean;
  /** Only a key's current secret may call it, not one a roll replaced (from the permission: needsCurrentSecret). */
  currentSecretOnly: boolean;
}

const ROUTE_FLAGS = new RouteFlagCache<RouteFlags>((reflector, targets) => {
  const flag = (key: string) => reflector.getAllAndOverride<boolean>(key, targets) === true;
  const permission = reflector.getAllAndOverride<Permission | undefined>(ROUTE_PERMISSION, targets) ?? null;
  return {
    isPublic: flag(PUBLIC_ROUTE),
    sessionAllowed: flag(SESSION_ALLOWED),
    sessionOnly: flag(SESSION_ONLY),
    accountAdmin: flag(ACCOUNT_ADMIN),
    allowedDuringDeletion: flag(ALLOWED_DURING_DELETION),
    permission,
    publishable: flag(ROUTE_PUBLISHABLE),
    currentSecretOnly: permission !== null && needsCurrentSecret(permission),
  };
});

/**
 * The one global guard. Reads route metadata, enforces who may call, and resolves
 * the site in the path for @CurrentSite(). A site the caller cannot reach is a 404, never a 403.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sites: SiteDirectory,
  ) {}

  /** Synchronous unless the route names a site, so most checks cost no promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const route = ROUTE_FLAGS.get(this.reflector, context);
    let principal: Principal = req.principal ?? ANONYMOUS;
    if (principal.kind === 'publishable' && !checkPublishable(req, principal, route)) {
      principal = ANONYMOUS;
      req.principal = principal;
    }
    if (principal.kind === 'key' && route.permission !== null && !grants(principal.permissions, route.permission)) {
      // On a public route a key without the permission reads like no key (as one that cannot
      // reach the site does): it never hides what anyone may do. Elsewhere it is refused before
      // the handler runs, the same for any site named, so it tells nothing about them.
      if (!route.isPublic)
        throw new ForbiddenProblem(
          'insufficient_permission',
          `This key lacks the \`${route.permission}\` permission this route needs`,
        );
      principal = ANONYMOUS;
      req.principal = principal;
    }
    if (principal.kind === 'key' && principal.secret === 'previous' && route.currentSecretOnly) {
      // A leaked secret the owner rolled away must not take the key back (roll it again), take
      // the owner's keys away or mint one of its own: refused before the site is resolved and
      // before Idempotency-Key could replay an answer (a roll's carries the new secret). On a
      // public route it reads as no key, as a key without the permission does.
      if (!route.isPublic)
        throw new ForbiddenProblem(
          'secret_replaced',
          "This key's secret was replaced by a roll; a replaced secret cannot manage keys, the account or its payment connections: use the key's new secret",
        );
      principal = ANONYMOUS;
      req.principal = principal;
    }

    if (principal.kind === 'anonymous' && !route.isPublic) {
      // Say which credential the route takes: a session-only route has no use for a key.
      throw new UnauthorizedProblem(
        'missing_credential',
        route.sessionOnly
          ? "A site user's session (Authorization: Bearer <session token>) is required"
          : route.sessionAllowed
            ? "An API key (x-api-key) or a site user's session (Authorization: Bearer) is required"
            : 'An API key (x-api-key) is required',
        route.sessionOnly ? 'session' : 'any',
      );
    }
    if (principal.kind === 'user' && !route.isPublic && !route.sessionAllowed) {
      throw new ForbiddenProblem('session_not_allowed', 'A site-user session may not call this route');
    }
    if (principal.kind === 'key' && route.sessionOnly) {
      throw new ForbiddenProblem('session_required', "This route is a site user's own: it needs their session");
    }
    if (principal.kind === 'key' && route.accountAdmin && principal.siteIds !== null) {
      throw new ForbiddenProblem(
        'key_restricted',
        'This key is restricted to some sites and cannot manage the account',
      );
    }
    const params = (req.params ?? {}) as Record<string, string>;
    const namesSite =
      params.siteName !== undefined ||
      params.site_name !== undefined ||
      (params.project_id !== undefined && params.organization_id !== undefined);
    if (!namesSite) return this.checkDeletion(req, principal, route);
    // A site already in memory keeps the check synchronous (no promise, no extra tick).
    const known = params.siteName !== undefined ? this.sites.peekByName(params.siteName) : null;
    if (known) return this.admit(req, principal, route, known);
    return this.resolveSite(params).then((site) => this.admit(req, principal, route, site));
  }

  /** The caller on a resolved site: who may reach it, and what a scheduled deletion allows. */
  private admit(req: Request & AuthenticatedRequest, principal: Principal, route: RouteFlags, site: SiteContext): true {
    let caller = principal;
    // On a public route, a key or session that cannot reach the site reads like an anonymous
    // caller: attaching a credential never hides what anyone may read.
    if (route.isPublic && !canReach(caller, site)) caller = ANONYMOUS;
    // A session is bound to its site: on another one it is no credential at all.
    if (caller.kind === 'user' && !canReach(caller, site))
      throw new UnauthorizedProblem('invalid_session', 'The session belongs to another site');
    if (!canReach(caller, site)) throw new NotFoundProblem('Site', 'site_not_found');
    req.site = site;
    req.principal = caller;
    // An anonymous read of the site's public data: cacheable by anyone (public-read-cache.ts).
    if (route.isPublic && caller.kind === 'anonymous' && req.method === 'GET')
      (req as Request & PublicReadFlag).publicRead = true;
    // After the site check, so another account's site still reads as a 404.
    return this.checkDeletion(req, caller, route);
  }

  private checkDeletion(req: Request, principal: Principal, route: RouteFlags): true {
    if (
      principal.kind === 'user' &&
      principal.deletionScheduled === true &&
      !READ_METHODS.has(req.method) &&
      !route.allowedDuringDeletion
    ) {
      throw new ForbiddenProblem(
        'user_pending_deletion',
        'This user is scheduled for erasure: they can only read and cancel it',
      );
    }
    if (
      principal.kind === 'key' &&
      principal.accountDeletionScheduled &&
      !READ_METHODS.has(req.method) &&
      !route.allowedDuringDeletion
    ) {
      throw new ForbiddenProblem(
        'account_pending_deletion',
        'The account is scheduled for deletion: it can only read and cancel',
      );
    }
    return true;
  }

  private async resolveSite(params: Record<string, string>): Promise<SiteContext> {
    const name = params.siteName ?? params.site_name;
    if (name !== undefined) {
      const site = SITE_NAME_PATTERN.test(name) ? await this.sites.findByName(name) : null;
      if (!site) throw new NotFoundProblem('Site', 'site_not_found');
      return site;
    }
    // v1 project routes: organization = account id, project = site id.
    if (params.project_id !== undefined && params.organization_id !== undefined) {
      const [organizationId, projectId] = [parseId(params.organization_id), parseId(params.project_id)];
      // Ids are canonical digits everywhere (docs/foundation.md, "Input rules"): `0x1` is a 400, not another project.
      const malformed = [
        ['organization_id', organizationId],
        ['project_id', projectId],
      ].filter(([, id]) => id === null);
      if (malformed.length)
        throw new ValidationProblem(
          malformed.map(([path]) => ({ path: String(path), message: 'must be a positive integer' })),
        );
      const site = await this.sites.findById(projectId!);
      // The same 404 as an unreachable site below, so (organization, project) pairs cannot be probed.
      if (!site || site.accountId !== organizationId) throw new NotFoundProblem('Site', 'site_not_found');
      return site;
    }
    throw new NotFoundProblem('Site', 'site_not_found');
  }
}

/**
 * A publishable key counts only where @Route says so (published reads, the public forms), and only
 * from its allowed origins: refused before the site is resolved, the same for any site, so it
 * tells nothing about them. On another public route it reads as no key (false), as a key without
 * the route's permission does. The origin list keeps other sites' pages from using a key they
 * copied; it binds browsers, not a client that writes its own `Origin`.
 */
function checkPublishable(req: Request, key: PublishableKeyPrincipal, route: RouteFlags): boolean {
  if (route.sessionOnly)
    throw new ForbiddenProblem('session_required', "This route is a site user's own: it needs their session");
  if (!route.publishable && route.isPublic) return false;
  if (!route.publishable)
    throw new ForbiddenProblem(
      'insufficient_permission',
      'A publishable key may only read published data and call the public routes: this route needs a secret key' +
        (route.permission ? ` with the \`${route.permission}\` permission` : ''),
    );
  if (key.allowedOrigins !== null && !key.allowedOrigins.includes(req.headers.origin ?? ''))
    throw new ForbiddenProblem('origin_not_allowed', 'This publishable key may not be used from this origin');
  return true;
}

function canReach(principal: Principal, site: SiteContext): boolean {
  switch (principal.kind) {
    case 'key':
    case 'publishable':
      return (
        principal.accountId === site.accountId && (principal.siteIds === null || principal.siteIds.includes(site.id))
      );
    case 'user':
      return principal.siteId === site.id;
    default:
      return true; // anonymous only gets here on public routes
  }
}
