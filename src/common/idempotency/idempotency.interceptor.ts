import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { from, Observable, of } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { AuthenticatedRequest } from '../auth/principal';
import { BadRequestProblem, ConflictProblem } from '../errors/problems';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { idempotencyKeyHash, openBody, SealedBody, sealBody } from './sealed-response';
import { stableJson } from './stable-json';

const REPLAYED_HEADERS = ['location', 'etag'];
/** Tries to claim a key whose row keeps vanishing (its requests failing) before answering 409. */
const CLAIM_ATTEMPTS = 3;

function inProgress(): ConflictProblem {
  return new ConflictProblem(
    'idempotency_request_in_progress',
    'A request with this Idempotency-Key is still being processed',
  );
}

/**
 * Stores the first successful response of an @Idempotent() route per (caller, key) and replays
 * it. Failed requests are not stored, so a client may retry them with the same key. The row keeps
 * a hash of the key and the body sealed with it (sealed-response.ts).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const key = req.header('idempotency-key');
    if (key === undefined) return next.handle();
    return this.handle(context, next, req, key);
  }

  private async handle(context: ExecutionContext, next: CallHandler, req: Request & AuthenticatedRequest, key: string) {
    if (key.length < 1 || key.length > 255) {
      throw new BadRequestProblem('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 characters', [
        { path: 'Idempotency-Key', message: 'must be 1 to 255 characters' },
      ]);
    }
    const res = context.switchToHttp().getResponse<Response>();
    const p = req.principal;
    const scope =
      p?.kind === 'key' ? `account:${p.accountId}` : p?.kind === 'user' ? `user:${p.userId}` : `ip:${req.ip}`;
    const keyHash = idempotencyKeyHash(scope, key);
    const path = req.originalUrl.split('?')[0];
    const requestHash = createHash('sha256')
      .update(`${req.method} ${path}\n${stableJson(req.body ?? null)}`)
      .digest('hex');
    const repo = this.dataSource.getRepository(IdempotencyKeyEntity);

    // Expired keys are free again.
    await repo
      .createQueryBuilder()
      .delete()
      .where('scope = :scope AND key = :key AND created_at < now() - make_interval(secs => :ttl)', {
        scope,
        key: keyHash,
        ttl: this.config.IDEMPOTENCY_TTL_SECONDS,
      })
      .execute();
    let id: string | undefined;
    let existing: IdempotencyKeyEntity | null = null;
    // A request that failed deletes its row (so it can be retried): between our insert, which met
    // that row, and our read, it may be gone. Then the key is free: claim it again.
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS && !id && !existing; attempt++) {
      const inserted = await repo
        .createQueryBuilder()
        .insert()
        .values({ scope, key: keyHash, method: req.method, path, requestHash, state: 'processing' })
        .orIgnore()
        .returning(['id'])
        .execute();
      id = (inserted.raw as Array<{ id: string }>)[0]?.id;
      if (!id) existing = await repo.findOneBy({ scope, key: keyHash });
    }

    if (!id) {
      // Still unclaimed after the attempts: requests under this key keep starting and failing.
      if (!existing) throw inProgress();
      if (existing.requestHash !== requestHash) {
        throw new ConflictProblem('idempotency_key_reused', 'This Idempotency-Key was used with another request');
      }
      if (existing.state !== 'completed') throw inProgress();
      for (const [name, value] of Object.entries(existing.responseHeaders ?? {})) res.setHeader(name, value);
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(existing.responseStatus ?? HttpStatus.OK);
      return of(openBody(existing.responseBody as SealedBody, scope, key));
    }

    const status =
      this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? (req.method === 'POST' ? 201 : 200);
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
              { id: Number(id) },
              {
                state: 'completed',
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
            await repo.delete({ id: Number(id) });
            throw err;
          })(),
        ),
      ),
    );
  }
}
