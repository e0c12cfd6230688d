import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, Observable, of } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { DataSource, Repository } from 'typeorm';
import { HttpConfig } from '../../config/http.config';
import { AuthenticatedRequest } from '../auth/principal';
import { BadRequestProblem, ConflictProblem } from '../errors/problems';
import { handlerHttpCode } from '../internals/nest-metadata';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import {
  IDEMPOTENCY_HEADER,
  idempotencyPolicy,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  REPLAYED_HEADER,
} from './idempotent.decorator';
import { drainStream, jsonFingerprint, PENDING_STREAM, watchStream } from './request-fingerprint';
import { idempotencyKeyHash, openBody, SealedBody, sealBody } from './sealed-response';

type IdempotentRequest = Request & AuthenticatedRequest;

const REPLAYED_HEADERS = ['location', 'etag'];
/** Tries to claim a key whose row keeps vanishing (its requests failing) before answering 409. */
const CLAIM_ATTEMPTS = 3;
/** How long a retry waits for the first request under its key to finish, then replays it. */
export const IN_PROGRESS_WAIT_MS = 5_000;
const POLL_MS = 50;

const inProgress = () =>
  new ConflictProblem(
    'idempotency_request_in_progress',
    'A request with this Idempotency-Key is still being processed',
  );
const reused = () =>
  new ConflictProblem('idempotency_key_reused', 'This Idempotency-Key was used with another request');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whose keys these are: the credential (an API key, a site-user session, or an anonymous caller's
 * address) within the site, under the account so that its deletion finds them.
 */
export function idempotencyScope(req: IdempotentRequest): string {
  const p = req.principal;
  const site = req.site ? `site:${req.site.id}` : 'site:-';
  if (p?.kind === 'key') return `account:${p.accountId}:${site}:key:${p.keyId}`;
  if (p?.kind === 'user') return `account:${p.accountId}:${site}:session:${p.sessionId}`;
  const account = req.site ? `account:${req.site.accountId}:` : '';
  return `${account}${site}:ip:${req.ip}`;
}

/**
 * Every POST honours `Idempotency-Key` (idempotent.decorator.ts says which and documents it):
 * the first successful answer per (scope, key) is stored and replayed. Failed requests are not
 * stored, so a client may retry them with the same key. The row keeps a hash of the key and the
 * answer sealed with it (sealed-response.ts). A route that opted out refuses the header.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly keys = new IdempotencyKeysRepository();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: HttpConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<IdempotentRequest>();
    const key = req.header(IDEMPOTENCY_HEADER);
    if (key === undefined) return next.handle();
    const policy = idempotencyPolicy(context.getHandler());
    // Other methods are idempotent by their nature: the header changes nothing there.
    if (!policy) return next.handle();
    if (policy.kind === 'refused') {
      throw new BadRequestProblem('idempotency_key_unsupported', `This route does not take an ${IDEMPOTENCY_HEADER}`, [
        { path: IDEMPOTENCY_HEADER, message: policy.reason },
      ]);
    }
    if (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new BadRequestProblem('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 characters', [
        { path: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 characters' },
      ]);
    }
    return this.handle(context, next, req, key, policy.stream);
  }

  private async handle(
    context: ExecutionContext,
    next: CallHandler,
    req: IdempotentRequest,
    key: string,
    stream: boolean,
  ): Promise<Observable<unknown>> {
    const res = context.switchToHttp().getResponse<Response>();
    const scope = idempotencyScope(req);
    const keyHash = idempotencyKeyHash(scope, key);
    const path = req.originalUrl.split('?')[0];
    // A streamed body is known once read: by the handler (first request) or here (a retry).
    const requestHash = stream ? PENDING_STREAM : jsonFingerprint(req);
    let streamHash: Promise<string> | undefined;
    const fingerprint = () => (stream ? (streamHash ??= drainStream(req)) : Promise.resolve(requestHash));
    const repo = this.dataSource.getRepository(IdempotencyKeyEntity);

    // Expired keys are free again.
    await this.keys.deleteExpired(repo, scope, keyHash, this.config.IDEMPOTENCY_TTL_SECONDS);

    const deadline = Date.now() + IN_PROGRESS_WAIT_MS;
    for (let vanished = 0; ;) {
      const id = await this.keys.claim(repo, { scope, key: keyHash, method: req.method, path, requestHash });
      if (id) return this.run(next, req, res, repo, id, { scope, key, stream, context });
      const existing = await repo.findOneBy({ scope, key: keyHash });
      if (!existing) {
        // The first request failed and gave the key back between our insert and our read.
        if (++vanished >= CLAIM_ATTEMPTS) throw inProgress();
        continue;
      }
      if (existing.requestHash !== PENDING_STREAM && existing.requestHash !== (await fingerprint())) throw reused();
      if (existing.state === 'completed') {
        for (const [name, value] of Object.entries(existing.responseHeaders ?? {})) res.setHeader(name, value);
        res.setHeader(REPLAYED_HEADER, 'true');
        res.status(existing.responseStatus ?? HttpStatus.OK);
        return of(openBody(existing.responseBody as SealedBody, scope, key));
      }
      // The same request, still running: wait for its answer rather than run it twice.
      if (Date.now() >= deadline) throw inProgress();
      await sleep(POLL_MS);
    }
  }

  private run(
    next: CallHandler,
    req: IdempotentRequest,
    res: Response,
    repo: Repository<IdempotencyKeyEntity>,
    id: number,
    { scope, key, stream, context }: { scope: string; key: string; stream: boolean; context: ExecutionContext },
  ): Observable<unknown> {
    const status = handlerHttpCode(context.getHandler()) ?? (req.method === 'POST' ? 201 : 200);
    const streamed = stream ? watchStream(req) : null;
    return next.handle().pipe(
      mergeMap((body: unknown) =>
        from(
          (async () => {
            const headers: Record<string, string> = {};
            for (const name of REPLAYED_HEADERS) {
              const value = res.getHeader(name);
              if (typeof value === 'string') headers[name] = value;
            }
            await repo.update(
              { id },
              {
                state: 'completed',
                ...(stream ? { requestHash: streamed?.() ?? 'stream:unread' } : {}),
                // What the handler answered: a route may choose its status (200 now, or 202 queued).
                responseStatus: res.statusCode || status,
                responseBody: sealBody(body, scope, key),
                responseHeaders: headers,
              },
            );
            return body;
          })(),
        ),
      ),
      catchError((err) =>
        from(
          (async () => {
            await repo.delete({ id });
            throw err;
          })(),
        ),
      ),
    );
  }
}
