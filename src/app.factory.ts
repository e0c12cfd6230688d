import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { DestinationStream } from 'pino';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { createRootLogger, PinoNestLogger } from './common/logging/logging';
import { PUBLIC_URLS_LOCAL, PublicUrls } from './common/http/public-urls';
import { fenceWarning } from './common/internals/fence';
import { checkReadFences } from './common/internals/fences';
import { installShapedReads } from './common/internals/shaped-read';
import { Configs } from './config/configs';
import { applyHttpPipeline } from './http-pipeline';

export interface CreateAppOptions {
  configs: Configs;
  /** Extra modules (tests mount probe controllers this way). */
  extraModules?: Type[];
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
}

/** Builds the whole HTTP app, initialised but not listening. The server and the tests share it. */
export async function createApp({
  configs,
  extraModules = [],
  logDestination,
}: CreateAppOptions): Promise<NestExpressApplication> {
  const { http, logging } = configs;
  const logger = createRootLogger(logging, logDestination);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(configs, extraModules), {
    logger: new PinoNestLogger(logger),
    // Bodies are read after the guards (RequestBodyGuard, src/http-pipeline.ts).
    bodyParser: false,
    abortOnError: false,
  });
  app.disable('x-powered-by');
  // No body-hash ETag on every response (a SHA-1 of each list page): resources that can be
  // edited carry their own version ETag (content), and stored files theirs. docs/performance.md.
  app.set('etag', false);
  (app.getHttpAdapter().getInstance() as { locals: Record<string, unknown> }).locals[PUBLIC_URLS_LOCAL] =
    app.get(PublicUrls);
  app.set('trust proxy', http.TRUST_PROXY);
  // What leans on libraries' internals is fenced (src/common/internals): the reads warn when a
  // library is another version; the fast paths (the params/query memo, the shaped reads' prepared
  // statements) step aside then, and run only with FAST_PATHS on.
  const fenceWarn = fenceWarning(logger);
  checkReadFences(fenceWarn);
  installShapedReads(app.get(DataSource), http, fenceWarn);
  // Every step of a request, in order: src/http-pipeline.ts.
  applyHttpPipeline(app, configs, logger, fenceWarn);
  await app.init();
  return app;
}
