import cluster from 'node:cluster';
import { createServer, Server } from 'node:http';
import { AggregatorRegistry, Registry } from 'prom-client';

/**
 * Framework-free pieces of the metrics endpoint: the separate-port server, and the cluster
 * plumbing. A cluster's primary loads none of the app (src/main.ts), so this file imports
 * nothing from Nest.
 */

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
/** The API's response headers (security-headers.ts): a scrape is no page either. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none';frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

const REQUEST = 'sitebase:metrics-request';
const ANSWER = 'sitebase:metrics-answer';
const IPC_TIMEOUT_MS = 6000;

/**
 * METRICS_PORT: GET /metrics (and HEAD) without a token, on its own address; anything else is a
 * plain 404. Resolves once listening (a busy port rejects, and the start fails, as for PORT).
 */
export function startMetricsServer(host: string, port: number, render: () => Promise<string>): Promise<Server> {
  const server = createServer((req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    render().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics unavailable\n'),
    );
  });
  server.keepAliveTimeout = 5000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve(server);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * In a cluster worker: answer the primary's collection requests with this registry (prom-client's
 * AggregatorRegistry protocol). Call once per worker.
 */
export function reportToPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // The constructor installs the worker's listener.
  new AggregatorRegistry();
}

/** In a cluster worker: the whole cluster's metrics, aggregated by the primary. */
export function clusterMetricsFromPrimary(): Promise<string> {
  const id = `${process.pid}-${Date.now()}-${Math.random()}`;
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string; id?: string; text?: string; error?: string }) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      clearTimeout(timer);
      process.removeListener('message', onMessage);
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.text ?? '');
    };
    const timer = setTimeout(() => {
      process.removeListener('message', onMessage);
      reject(new Error('The primary did not answer the metrics request'));
    }, IPC_TIMEOUT_MS);
    process.on('message', onMessage);
    process.send?.({ type: REQUEST, id });
  });
}

/**
 * In a cluster's primary: aggregate the workers' metrics (counters and histograms summed, the
 * database gauges their maximum) for a worker that was scraped on the main port, and serve them
 * on METRICS_PORT when it is set. Answers the server to close, if any.
 */
export async function servePrimaryMetrics(options: { host: string; port: number }): Promise<Server | undefined> {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, text }),
      (err: Error) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, error: err.message }),
    );
  });
  if (options.port === 0) return undefined;
  return startMetricsServer(options.host, options.port, () => aggregator.clusterMetrics());
}
