import { LoggerService } from '@nestjs/common';
import type { RequestHandler } from 'express';
import pino, { Logger as Pino } from 'pino';
import { AppConfig } from '../../config/app-config';

/**
 * The process logger: JSON lines on stdout (or `destination`, for tests), or readable lines for
 * a person at a terminal (LOG_FORMAT=auto|pretty, pino-pretty, written synchronously).
 */
export function createRootLogger(config: AppConfig, destination?: pino.DestinationStream): Pino {
  const pretty =
    !destination && (config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT === 'auto' && process.stdout.isTTY === true));
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  };
  if (pretty) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pinoPretty = require('pino-pretty') as (o: object) => pino.DestinationStream;
    return pino(
      options,
      pinoPretty({
        sync: true,
        colorize: process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
      }),
    );
  }
  return pino(options, destination);
}

/**
 * Nest's start-up chatter (one line per module and per route, about 150 lines) is for
 * debugging: at info, a start prints a handful of lines and the API-key banner stands out.
 */
const STARTUP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/**
 * One access-log line per request, at info (warn for 4xx, error for 5xx), with the request id
 * the requestId middleware set, method, URL, status and duration. Health probes are not logged.
 * Not pino-http: it builds two child loggers per request, serialising the request into each,
 * whether or not anything is logged (a tenth of a cached public read); and not nestjs-pino,
 * whose per-request AsyncLocalStorage turns on promise hooks for the whole process on Node 20.
 */
export function httpLogger(logger: Pino): RequestHandler {
  return (req, res, next) => {
    if (req.url.startsWith('/health')) return next();
    const started = process.hrtime.bigint();
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const status = res.writableFinished ? res.statusCode : 499; // 499: the client went away
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger[level](
        {
          reqId: (req as { id?: string }).id,
          method: req.method,
          url: req.originalUrl,
          status,
          ms: Math.round(ms * 10) / 10,
        },
        'request completed',
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/** Nest's own logs (start-up, Logger calls in services) through the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && STARTUP_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
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
