import { Type } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { Configs, loadConfigs } from '../../src/config/configs';
import { createFreshDatabase, workerDatabaseUrl } from './databases';
import { checkResponses } from './response-check';
import { scaled } from './time-scale';

export interface TestApp {
  app: NestExpressApplication;
  server: Server;
  db: DataSource;
  /** The settings it runs with, by class (configs.server.PUBLIC_BASE_URL). */
  configs: Configs;
  close(): Promise<void>;
}

export interface StartAppOptions {
  /** Settings on top of the test defaults, as environment strings. */
  env?: Record<string, string>;
  extraModules?: Type[];
  /** Another database than this worker's (e.g. a fresh one from createFreshDatabase). */
  databaseUrl?: string;
  /**
   * A fresh database of this tag instead of the worker's: for files that move the Clock and leave
   * rows a later file's jobs would act on (subscriptions whose periods ended in 2020).
   */
  freshDatabase?: string;
  /** Collects log lines (set LOG_LEVEL in env to see them). */
  logDestination?: { write(line: string): void };
}

/**
 * The real app (createApp) on this worker's database; migrations ran once in global-setup. Every
 * answer it gives is checked against its OpenAPI document (response-check.ts).
 */
export async function startApp(options: StartAppOptions = {}): Promise<TestApp> {
  // Stored files go to a folder of this app's own (removed when it closes), never the checkout's .data.
  const media = options.env?.MEDIA_LOCAL_DIR ? undefined : mkdtempSync(join(tmpdir(), 'sitebase-media-app-'));
  const configs = loadConfigs({
    NODE_ENV: 'test',
    ...(media ? { MEDIA_LOCAL_DIR: media } : {}),
    LOG_LEVEL: 'silent',
    MIGRATIONS_RUN: 'false',
    BOOTSTRAP_ENABLED: 'false',
    JOBS_POLL_SECONDS: '1',
    OUTBOX_POLL_MS: '200',
    // Counters are shared through the worker's database by every file it runs: only the rate-limit
    // tests, which set their own, should ever meet the limit.
    RATE_LIMIT_PUBLIC_MAX: '1000000',
    // A loaded test machine makes some requests slow: only the tests of the threshold set one.
    SLOW_REQUEST_MS: '0',
    // Sites may be connected to Stripe (a key to seal their keys with); no test reaches the internet:
    // the Stripe API is a closed local port unless a test points it at the stand-in (test/support/stripe).
    SECRETS_ENCRYPTION_KEY: 'c2l0ZWJhc2UtdGVzdHMtb25seS1zZWNyZXRzLWtleSE=',
    STRIPE_API_BASE: 'http://127.0.0.1:9',
    DATABASE_URL:
      options.databaseUrl ??
      (options.freshDatabase ? await createFreshDatabase(options.freshDatabase) : workerDatabaseUrl()),
    // CI runs a set of files once more with the fast paths off (scripts/test.js): every app then has them off.
    ...(process.env.FAST_PATHS ? { FAST_PATHS: process.env.FAST_PATHS } : {}),
    ...options.env,
  });
  const app = await createApp({ configs, extraModules: options.extraModules, logDestination: options.logDestination });
  checkResponses(app, configs.media);
  return {
    app,
    server: app.getHttpServer(),
    db: app.get(DataSource),
    configs,
    close: async () => {
      await app.close();
      if (media) rmSync(media, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value other than undefined (for jobs and the outbox). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
