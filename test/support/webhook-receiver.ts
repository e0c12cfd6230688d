import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { scaled } from './time-scale';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The raw body, as received (what the signature covers). */
  body: string;
  path: string;
  /** How the receiver answered it. */
  status: number;
  at: number;
}

/** How the receiver answers the n-th request (1-based): a status, a delay, a body. */
export interface ReceiverAnswer {
  status?: number;
  delayMs?: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, in arrival order (also the failed ones). */
  requests: ReceivedWebhook[];
  /** The requests answered 2xx. */
  accepted(): ReceivedWebhook[];
  /** Resolves once `count` requests were answered 2xx (optionally only those `match` keeps). */
  waitFor(count: number, match?: (r: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  /** Changes how later requests are answered. */
  answer(fn: (n: number, r: ReceivedWebhook) => ReceiverAnswer): void;
  close(): Promise<void>;
}

/**
 * A local HTTP receiver on 127.0.0.1 for webhook tests: records each request with its raw body
 * and answers as told (200 by default), so tests can fail, slow down or redirect deliveries.
 */
export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  let respond: (n: number, r: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 200, body: 'ok' });
  const waiters = new Set<() => boolean>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedWebhook = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '',
        status: 0,
        at: Date.now(),
      };
      requests.push(r);
      const a = respond(requests.length, r);
      r.status = a.status ?? 200;
      const reply = () => {
        if (res.destroyed) return;
        res.writeHead(r.status, { 'content-type': 'text/plain', ...a.headers });
        res.end(a.body ?? (r.status < 300 ? 'ok' : 'no'));
        for (const check of [...waiters]) if (check()) waiters.delete(check);
      };
      if (a.delayMs) setTimeout(reply, a.delayMs);
      else reply();
    });
  });
  // A slow answer must not hold close() up.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const accepted = () => requests.filter((r) => r.status >= 200 && r.status < 300);
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    accepted,
    answer: (fn) => {
      respond = fn;
    },
    waitFor: (count, match = () => true, timeoutMs = 20000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const got = accepted().filter(match);
          if (got.length < count) return false;
          clearTimeout(timer);
          resolve(got);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`webhook receiver: ${accepted().filter(match).length} of ${count} within ${timeoutMs} ms`));
        }, scaled(timeoutMs));
        if (!check()) waiters.add(check);
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
