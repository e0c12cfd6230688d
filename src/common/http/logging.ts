import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import { AppConfig } from '../../config/app-config';

/** Structured JSON logs (pino) with a request id per request, echoed as `x-request-id`. */
export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.LOG_LEVEL,
      // The requestId middleware ran first and set it.
      genReqId: (req: IncomingMessage) => req.id ?? randomUUID(),
      // Probes would drown the log; their failures still show as problems.
      autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health') },
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    },
  };
}
