import { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import pino, { Logger as Pino } from 'pino';
import pinoHttp from 'pino-http';
import { AppConfig } from '../../config/app-config';

/** The process logger: JSON lines on stdout. */
export function createRootLogger(config: AppConfig): Pino {
  return pino({
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  });
}

/**
 * One access-log line per request with its request id (set by the requestId middleware).
 * pino-http is mounted directly rather than through nestjs-pino: that one wraps every request
 * in an AsyncLocalStorage context, which on Node 20 turns on promise hooks for the whole
 * process and cost about a third of the throughput (docs/benchmarks.md). Health probes are
 * not logged.
 */
export function httpLogger(logger: Pino): RequestHandler {
  const log = pinoHttp({
    logger,
    genReqId: (req: IncomingMessage) => req.id ?? randomUUID(),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
  });
  return (req, res, next) => (req.url.startsWith('/health') ? next() : log(req, res, next));
}

/** Nest's own logs (start-up, Logger calls in services) through the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Nest calls `(message, ...extra, context)`; services here call `({ err, ... }, 'text')`. */
  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const rest = [...params];
    const context = typeof rest[rest.length - 1] === 'string' && rest.length > 0 ? (rest.pop() as string) : undefined;
    if (message instanceof Error) {
      this.logger[level]({ context, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      const text = typeof rest[0] === 'string' ? rest[0] : undefined;
      this.logger[level]({ context, ...(message as Record<string, unknown>) }, text);
    } else {
      // Nest passes a stack as the second argument of error().
      const stack = level === 'error' && typeof rest[0] === 'string' ? rest[0] : undefined;
      this.logger[level]({ context, ...(stack ? { stack } : {}) }, String(message));
    }
  }
}
