import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { UnauthorizedProblem } from '../errors/problems';
import { ANONYMOUS, API_KEY_PATTERN, ApiKeyVerifier, AuthenticatedRequest, Principal } from './principal';
import { SessionVerifiers } from './session-verifiers';

/**
 * Resolves who is calling, once per request, before routing. A credential that is presented
 * but invalid is a 401 everywhere. Every /v1 path, matched or not, needs an `x-api-key`
 *, so an unknown v1 route cannot be probed without one.
 */
/** Every /v1 path (routing is case-insensitive, so is this), on the raw URL. */
const V1_PATH = /^\/v1(?:[/?#]|$)/i;

@Injectable()
export class CredentialsMiddleware implements NestMiddleware {
  constructor(
    private readonly keys: ApiKeyVerifier,
    private readonly sessions: SessionVerifiers,
  ) {}

  async use(req: Request & AuthenticatedRequest, _res: Response, next: NextFunction): Promise<void> {
    req.principal = await this.resolve(req);
    next();
  }

  private async resolve(req: Request): Promise<Principal> {
    const isV1 = V1_PATH.test(req.url);
    const apiKey = req.header('x-api-key');
    const auth = req.header('authorization');
    if (apiKey !== undefined) {
      const key = await this.verifyKey(apiKey, 'x-api-key');
      // A browser app sends its publishable key on every call: with a site user's session
      // beside it, the session (which may do more) is who calls. Both must be valid.
      const token = key.kind === 'publishable' && !isV1 && auth !== undefined ? bearer(auth) : undefined;
      return token !== undefined && !token.startsWith('sb_') ? this.verifySession(token) : key;
    }
    if (isV1) throw new UnauthorizedProblem('missing_api_key', 'The x-api-key header is required', 'apiKey');
    if (auth === undefined) return ANONYMOUS;
    const token = bearer(auth);
    return token.startsWith('sb_') ? this.verifyKey(token, 'bearer') : this.verifySession(token);
  }

  private async verifySession(token: string): Promise<Principal> {
    const user = await this.sessions.verify(token);
    if (!user)
      throw new UnauthorizedProblem('invalid_session', 'The session token is invalid, expired or revoked', 'session');
    return user;
  }

  private async verifyKey(plaintext: string, from: 'x-api-key' | 'bearer'): Promise<Principal> {
    const principal = API_KEY_PATTERN.test(plaintext) ? await this.keys.verify(plaintext) : null;
    if (!principal) throw new UnauthorizedProblem('invalid_api_key', invalidKeyDetail(plaintext, from));
    return principal;
  }
}

const BEARER_PREFIX = /^Bearer\s/i;

/**
 * Why a key was refused, with the hint a common mistake needs: `x-api-key: Bearer sb_live_…`
 * (the Authorization form pasted into x-api-key) is the key with a prefix it must not have.
 */
function invalidKeyDetail(plaintext: string, from: 'x-api-key' | 'bearer'): string {
  const detail = 'The API key is invalid or revoked';
  if (from !== 'x-api-key' || !BEARER_PREFIX.test(plaintext)) return detail;
  return `${detail}: x-api-key takes the key alone (x-api-key: sb_live_…), without "Bearer "; or send Authorization: Bearer <key>`;
}

/** The token of `Authorization: Bearer <token>`; any other form is a 401. */
function bearer(auth: string): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!match)
    throw new UnauthorizedProblem('malformed_authorization', 'Authorization must be "Bearer <token>"', 'session');
  return match[1];
}

/**
 * Mounted as a plain Express middleware (createApp) rather than through Nest's middleware
 * consumer, which matched a catch-all route pattern on every request; errors go to next() and
 * from there through the problem filter.
 */
export function credentials(middleware: CredentialsMiddleware): RequestHandler {
  return (req, res, next) => {
    // Most public traffic carries no credential: answer that without a promise.
    if (req.headers['x-api-key'] === undefined && req.headers.authorization === undefined && !V1_PATH.test(req.url)) {
      (req as Request & AuthenticatedRequest).principal = ANONYMOUS;
      return next();
    }
    middleware.use(req, res, next).catch(next);
  };
}
