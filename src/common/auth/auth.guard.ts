import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ForbiddenProblem, NotFoundProblem, UnauthorizedProblem } from '../errors/problems';
import type { SiteContext } from '../tenancy/site-context';
import {
  ACCOUNT_ADMIN, ALLOWED_DURING_DELETION, PUBLIC_ROUTE, SESSION_ALLOWED,
} from './decorators';
import { ANONYMOUS, AuthenticatedRequest, Principal, SITE_NAME_PATTERN, SiteDirectory } from './principal';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one global guard (API.md §2). Reads route metadata, enforces who may call, and resolves
 * the site in the path for @CurrentSite(). A site the caller cannot reach is a 404, never a 403.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector, private readonly sites: SiteDirectory) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const targets = [context.getHandler(), context.getClass()];
    const flag = (key: string) => this.reflector.getAllAndOverride<boolean>(key, targets) === true;
    const isPublic = flag(PUBLIC_ROUTE);
    let principal: Principal = req.principal ?? ANONYMOUS;

    if (principal.kind === 'anonymous' && !isPublic) {
      throw new UnauthorizedProblem('missing_credential', 'An API key (x-api-key) is required');
    }
    if (principal.kind === 'user' && !isPublic && !flag(SESSION_ALLOWED)) {
      throw new ForbiddenProblem('session_not_allowed', 'A site-user session may not call this route');
    }
    if (principal.kind === 'key') {
      if (flag(ACCOUNT_ADMIN) && principal.siteIds !== null) {
        throw new ForbiddenProblem('key_restricted', 'This key is restricted to some sites and cannot manage the account');
      }
    }

    const site = await this.resolveSite((req.params ?? {}) as Record<string, string>);
    if (site) {
      // On a public route, a key or session that cannot reach the site reads like an anonymous
      // caller: attaching a credential never hides what anyone may read.
      if (isPublic && !canReach(principal, site)) principal = ANONYMOUS;
      if (!canReach(principal, site)) throw new NotFoundProblem('Site', 'site_not_found');
      req.site = site;
      req.principal = principal;
    }
    // After the site check, so another account's site still reads as a 404.
    if (principal.kind === 'key' && principal.accountDeletionScheduled && !READ_METHODS.has(req.method) && !flag(ALLOWED_DURING_DELETION)) {
      throw new ForbiddenProblem('account_pending_deletion', 'The account is scheduled for deletion: it can only read and cancel');
    }
    return true;
  }

  private async resolveSite(params: Record<string, string>): Promise<SiteContext | null | undefined> {
    const name = params.siteName ?? params.site_name;
    if (name !== undefined) {
      const site = SITE_NAME_PATTERN.test(name) ? await this.sites.findByName(name) : null;
      if (!site) throw new NotFoundProblem('Site', 'site_not_found');
      return site;
    }
    // v1 project routes: organization = account id, project = site id (API.md §1).
    if (params.project_id !== undefined && params.organization_id !== undefined) {
      const projectId = /^\d{1,15}$/.test(params.project_id) ? Number(params.project_id) : NaN;
      const site = Number.isNaN(projectId) ? null : await this.sites.findById(projectId);
      // The same 404 as an unreachable site below, so (organization, project) pairs cannot be probed.
      if (!site || String(site.accountId) !== params.organization_id) throw new NotFoundProblem('Site', 'site_not_found');
      return site;
    }
    return undefined;
  }
}

function canReach(principal: Principal, site: SiteContext): boolean {
  switch (principal.kind) {
    case 'key':
      return principal.accountId === site.accountId && (principal.siteIds === null || principal.siteIds.includes(site.id));
    case 'user':
      return principal.siteId === site.id;
    default:
      return true; // anonymous only gets here on public routes
  }
}
