import { Injectable, Logger } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import { problemBody, PROBLEM_CONTENT_TYPE } from '../errors/problem-details.filter';
import { RateLimitStore } from './rate-limit.store';

interface Block {
  until: number;
  /** The store's counter, which still counts every refused hit. */
  counter: string;
}

const MAX_BLOCKS = 100_000;

/**
 * Anonymous clients this instance has refused, by address, method and path, until their block
 * ends. The rate-limit guard records a block when it refuses one; `refuseBlocked` then answers
 * that client's next requests in plain Express, before routing, guards and the exception path
 * (which cost more than serving /health), and still counts each hit for the shared counters.
 * Only requests without a credential take this path, and only the exact path that was refused:
 * anything else goes the usual way, where the guard refuses it from memory too.
 */
@Injectable()
export class BlockedClients {
  private readonly logger = new Logger('RateLimit');
  private readonly blocks = new Map<string, Block>();

  constructor(private readonly store: RateLimitStore) {}

  block(req: Request, counter: string, until: number): void {
    if (this.blocks.size >= MAX_BLOCKS) this.blocks.clear();
    const key = keyOf(req);
    if (!this.blocks.has(key))
      this.logger.warn(
        { ip: req.ip, method: req.method, path: req.path, until: new Date(until).toISOString() },
        'Client blocked',
      );
    this.blocks.set(key, { until, counter });
  }

  /** Seconds the client must wait, when this request is one of a blocked client's. */
  check(req: Request): number | undefined {
    if (this.blocks.size === 0) return undefined;
    const key = keyOf(req);
    const block = this.blocks.get(key);
    if (!block) return undefined;
    const left = block.until - Date.now();
    if (left <= 0) {
      this.blocks.delete(key);
      return undefined;
    }
    this.store.countRefused(block.counter);
    return Math.ceil(left / 1000);
  }
}

function keyOf(req: Request): string {
  const q = req.url.indexOf('?');
  return `${req.ip} ${req.method} ${q < 0 ? req.url : req.url.slice(0, q)}`;
}

export function refuseBlocked(blocked: BlockedClients): RequestHandler {
  return (req, res: Response, next) => {
    if (req.headers['x-api-key'] !== undefined || req.headers.authorization !== undefined) return next();
    const retryAfter = blocked.check(req);
    if (retryAfter === undefined) return next();
    const body = problemBody(
      { status: 429, code: 'rate_limited', title: 'Too many requests', detail: `Retry after ${retryAfter} s` },
      (req as { id?: string }).id,
    );
    res.setHeader('Retry-After', String(retryAfter));
    res.status(429).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  };
}
