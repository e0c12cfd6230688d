import { Injectable, OnModuleDestroy } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { WebhooksConfig } from './webhooks.config';
import { resolveTarget, WebhookTargetError } from './webhook-address';

/** Why an attempt failed, for the delivery log (docs/webhooks.md). */
export const WEBHOOK_ERROR_KINDS = [
  'timeout',
  'connection',
  'dns',
  'blocked_address',
  'tls',
  'redirect',
  'http_status',
] as const;
export type WebhookErrorKind = (typeof WEBHOOK_ERROR_KINDS)[number];

/** One attempt's outcome. */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string;
  errorKind: WebhookErrorKind | null;
  error: string | null;
}

export interface OutgoingWebhook {
  url: string;
  /** The endpoint's own headers, then the signature headers (which always win). */
  headers: Record<string, string>;
  body: string;
}

/** The answer's first characters kept in the log. */
export const EXCERPT_CHARS = 500;
/** Bytes of an answer read at most; the rest is not read (the connection is dropped). */
const BODY_CAP = 16 * 1024;

/**
 * Sends one webhook over HTTP(S) with the guards of docs/webhooks.md: the host is resolved and
 * every address checked (private targets refused unless WEBHOOKS_ALLOW_PRIVATE), the
 * connection goes to the checked address (a lookup function that answers it, so no second DNS
 * query can rebind the name), redirects are not followed, the whole exchange has a deadline
 * (WEBHOOK_TIMEOUT_MS) and at most 16 KiB of the answer is read. Connections are kept alive
 * per host, so an endpoint receiving a stream of events reuses one.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 });

  constructor(private readonly config: WebhooksConfig) {}

  async send(hook: OutgoingWebhook): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(hook.url);
    let address: { address: string; family: 4 | 6 };
    try {
      [address] = await resolveTarget(target.hostname, this.config.WEBHOOKS_ALLOW_PRIVATE);
    } catch (err) {
      const kind = err instanceof WebhookTargetError ? err.kind : 'dns';
      return failure(kind, (err as Error).message, elapsed());
    }
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const done = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const pinned: LookupFunction = (_hostname, options, callback) => {
        if (options.all) callback(null, [address]);
        else callback(null, address.address, address.family);
      };
      const secure = target.protocol === 'https:';
      const req = (secure ? https : http).request(
        {
          method: 'POST',
          protocol: target.protocol,
          hostname: target.hostname.replace(/^\[|\]$/g, ''),
          port: target.port || (secure ? 443 : 80),
          path: `${target.pathname}${target.search}`,
          agent: secure ? this.httpsAgent : this.httpAgent,
          lookup: pinned,
          headers: {
            ...hook.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(hook.body),
            'user-agent': 'Sitebase-Webhooks/1.0',
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () => {
            const status = res.statusCode ?? 0;
            const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS);
            const ms = elapsed();
            if (status >= 200 && status < 300)
              done({
                ok: true,
                statusCode: status,
                durationMs: ms,
                responseExcerpt: excerpt,
                errorKind: null,
                error: null,
              });
            else if (status >= 300 && status < 400)
              done({
                ...failure('redirect', `answered ${status} (redirects are not followed)`, ms),
                statusCode: status,
                responseExcerpt: excerpt,
              });
            else
              done({
                ...failure('http_status', `answered ${status}`, ms),
                statusCode: status,
                responseExcerpt: excerpt,
              });
          };
          res.on('data', (chunk: Buffer) => {
            if (size < BODY_CAP) chunks.push(chunk.subarray(0, BODY_CAP - size));
            size += chunk.length;
            // Enough read: drop the connection rather than read a large answer to its end.
            if (size >= BODY_CAP) {
              finish();
              res.destroy();
            }
          });
          res.on('end', finish);
          res.on('error', (err) => done(failure(kindOf(err), describe(err), elapsed())));
        },
      );
      const timer = setTimeout(() => {
        done(failure('timeout', `no answer within ${this.config.WEBHOOK_TIMEOUT_MS} ms`, elapsed()));
        req.destroy();
      }, this.config.WEBHOOK_TIMEOUT_MS);
      req.on('error', (err) => done(failure(kindOf(err), describe(err), elapsed())));
      req.end(hook.body);
    });
  }

  onModuleDestroy(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function failure(kind: WebhookErrorKind, error: string, durationMs: number): AttemptResult {
  return { ok: false, statusCode: null, durationMs, responseExcerpt: '', errorKind: kind, error: error.slice(0, 500) };
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

function kindOf(err: unknown): WebhookErrorKind {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (TLS_CODES.test(code)) return 'tls';
  return 'connection';
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message ?? ''}` : (e.message ?? String(err));
}
