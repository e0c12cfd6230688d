import { LoggerService } from '@nestjs/common';
import type { RequestHandler } from 'express';
import pino, { Logger as Pino } from 'pino';
import { LoggingConfig } from '../../config/logging.config';
import type { AuthenticatedRequest } from '../auth/principal';
import { safeError, stackOrigin, withoutPaths } from './safe-error';
import { RouteTemplates } from '../http/route-template';
import { logsJson } from './say';

/**
 * The process logger: JSON lines on stdout (or `destination`, for tests), or readable lines for
 * a person at a terminal (LOG_FORMAT=auto|pretty, pino-pretty, written synchronously).
 */
export function createRootLogger(config: LoggingConfig, destination?: pino.DestinationStream): Pino {
  const pretty = !destination && !logsJson(config.LOG_FORMAT);
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    // Every `err` a line carries, from any module: no stack, statement or path (safe-error.ts).
    serializers: { err: safeError },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  };
  if (pretty) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pinoPretty = require('pino-pretty') as (o: object) => pino.DestinationStream;
    return pino(options, pinoPretty({ ...PRETTY, sync: true, colorize: process.stdout.isTTY === true }));
  }
  return pino(options, destination);
}

/** pino-pretty's options at a terminal: one line per entry, a request as `GET /url 200 3.1 ms` and its other fields after. */
export const PRETTY = {
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname',
  singleLine: true,
  // An `err` is already one safe object (safe-error.ts): inline, not pino-pretty's block.
  errorLikeObjectKeys: [],
  messageFormat: (log: Record<string, unknown>, messageKey: string) => prettyMessage(log, messageKey),
};

/** At a terminal, an access-log line reads as the request it was; any other line keeps its message. */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  if (log[messageKey] === REQUEST_COMPLETED && typeof log.method === 'string')
    return `${log.method} ${String(log.url)} ${String(log.status)} ${String(log.ms)} ms`;
  const message = log[messageKey];
  return typeof message === 'string' ? message : '';
}

/** The access log's message, by which its lines are found. */
const REQUEST_COMPLETED = 'request completed';

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

/** Path parameters and query keys whose values are credentials: never written to a log. */
const SECRET_NAME = /token|secret|password|passcode|otp|code|key|signature|sig$/i;
const REDACTED = '[redacted]';

/**
 * The URL as the access log writes it: path parameters of the route template and query values
 * whose names say they carry a credential (`/newsletter/confirm/:token`, `?token=`) are replaced
 * by `[redacted]`; everything else is kept as sent.
 */
export function loggableUrl(url: string, template: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  let out = path;
  if (template.includes(':')) {
    const names = template.split('/');
    const parts = path.split('/');
    if (names.length === parts.length) {
      out = parts
        .map((part, i) => (names[i].startsWith(':') && SECRET_NAME.test(names[i].slice(1)) ? REDACTED : part))
        .join('/');
    }
  }
  if (q < 0) return out;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      return SECRET_NAME.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${out}?${query}`;
}

export interface HttpLoggerOptions {
  /** Requests slower than this (ms) are logged at warn (at least) with `slow: true`; 0: never. */
  slowMs: number;
  routes: RouteTemplates;
}

/**
 * One access-log line per request, at info (a 4xx is the client's: info too; warn for slow
 * requests, error for 5xx),
 * with the request id the requestId middleware set, method, URL (credentials redacted:
 * loggableUrl), route template, status, duration, the site and who called (`keyId` or `userId`;
 * never a secret). Health probes are not logged.
 * Not pino-http: it builds two child loggers per request, serialising the request into each,
 * whether or not anything is logged (a tenth of a cached public read); and not nestjs-pino,
 * whose per-request AsyncLocalStorage turns on promise hooks for the whole process on Node 20.
 */
export function httpLogger(logger: Pino, options: HttpLoggerOptions): RequestHandler {
  const { slowMs, routes } = options;
  return (req, res, next) => {
    if (req.url.startsWith('/health')) return next();
    const started = process.hrtime.bigint();
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const status = res.writableFinished ? res.statusCode : 499; // 499: the client went away
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const slow = slowMs > 0 && ms >= slowMs;
      const level = status >= 500 ? 'error' : slow ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const r = req as typeof req & AuthenticatedRequest & { id?: string };
      const route = routes.of(req);
      const principal = r.principal;
      logger[level](
        {
          reqId: r.id,
          method: req.method,
          url: loggableUrl(req.originalUrl, route),
          route,
          status,
          ms: Math.round(ms * 10) / 10,
          ...(slow ? { slow: true } : {}),
          site: r.site?.name,
          keyId: principal?.kind === 'key' || principal?.kind === 'publishable' ? principal.keyId : undefined,
          userId: principal?.kind === 'user' ? principal.userId : undefined,
        },
        REQUEST_COMPLETED,
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
      // Nest passes a stack as the second argument of error(): only where it was thrown is kept.
      const at = level === 'error' && typeof rest[0] === 'string' ? stackOrigin(rest[0]) : undefined;
      this.logger[level]({ context, ...(at ? { at } : {}) }, withoutPaths(String(message)));
    }
  }
}
