import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { NotFoundProblem, UnauthorizedProblem } from '../errors/problems';
import type { SiteContext } from '../tenancy/site-context';
import { ANONYMOUS, AuthenticatedRequest, KeyPrincipal, Principal, UserPrincipal } from './principal';

export const PUBLIC_ROUTE = 'sitebase:public';
export const SESSION_ALLOWED = 'sitebase:session-allowed';
export const SESSION_ONLY = 'sitebase:session-only';
export const ACCOUNT_ADMIN = 'sitebase:account-admin';
export const ALLOWED_DURING_DELETION = 'sitebase:allowed-during-deletion';
/** The permission a key needs on a route (permissions.ts), resolved by ApiController from @Route. */
export const ROUTE_PERMISSION = 'sitebase:permission';
/** A publishable key counts on the route (derived by @Route: the public routes and published reads). */
export const ROUTE_PUBLISHABLE = 'sitebase:publishable';

/**
 * Routes are secret-key only unless marked. `@Public()` also admits anonymous callers
 * (a key or session, when presented, is still resolved, e.g. to show drafts).
 */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Admits a site-user session (from verify-otp) as well as a secret key. */
export const SessionAllowed = () => applyDecorators(SetMetadata(SESSION_ALLOWED, true), ApiBearerAuth('session'));

/** A site user's own routes (`/users/me/**`): a session only; a secret key has no "me" (403). */
export const SessionOnly = () =>
  applyDecorators(SetMetadata(SESSION_ALLOWED, true), SetMetadata(SESSION_ONLY, true), ApiBearerAuth('session'));

/** Account-wide administration: needs a key that is not restricted to some sites. */
export const AccountAdmin = () => SetMetadata(ACCOUNT_ADMIN, true);

/** Writes that stay possible while the account's deletion is scheduled (cancelling it). */
export const AllowedDuringDeletion = () => SetMetadata(ALLOWED_DURING_DELETION, true);

/**
 * Marks an operator route that is not part of the interface (create keys, sites):
 * `x-sitebase-admin: true` in the OpenAPI document, so client generators can leave it out.
 */
export const AdminRoute = () => ApiExtension('x-sitebase-admin', true);

/** The site resolved from `siteName`/`site_name` by the guard; 404 if the caller cannot reach it. */
export const CurrentSite = createParamDecorator((_: unknown, ctx: ExecutionContext): SiteContext => {
  const req = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>();
  if (!req.site) throw new NotFoundProblem('Site', 'site_not_found');
  return req.site;
});

/** Whoever is calling: a key, a site-user session or anonymous. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>().principal ?? ANONYMOUS;
});

/** The calling site user (routes marked session-only). */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): UserPrincipal => {
  const principal = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>().principal;
  if (principal?.kind !== 'user')
    throw new UnauthorizedProblem('missing_session', 'A site-user session is required', 'session');
  return principal;
});

/** The calling secret key (routes that are key-only). */
export const CurrentKey = createParamDecorator((_: unknown, ctx: ExecutionContext): KeyPrincipal => {
  const principal = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>().principal;
  if (principal?.kind !== 'key') throw new UnauthorizedProblem();
  return principal;
});
