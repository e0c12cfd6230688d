import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter';
import { createValidationPipe } from './common/errors/validation';
import { createRootLogger, httpLogger, PinoNestLogger } from './common/http/logging';
import { setupOpenApi } from './common/http/openapi';
import { corsForBrowsers, securityHeaders } from './common/http/security-headers';
import { credentials, CredentialsMiddleware } from './common/auth/credentials.middleware';
import { refuseContentEncoding } from './common/input/request-body';
import { requestId } from './common/http/request-id';
import { AppConfig } from './config/app-config';

export interface CreateAppOptions {
  config: AppConfig;
  /** Extra modules (tests mount probe controllers this way). */
  extraModules?: Type[];
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
}

/** Builds the whole HTTP app, initialised but not listening. The server and the tests share it. */
export async function createApp({ config, extraModules = [], logDestination }: CreateAppOptions): Promise<NestExpressApplication> {
  const logger = createRootLogger(config, logDestination);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, extraModules), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
    abortOnError: false,
  });
  app.disable('x-powered-by');
  app.set('trust proxy', parseTrustProxy(config.TRUST_PROXY));
  app.use(requestId);
  app.use(httpLogger(logger));
  app.use(securityHeaders());
  app.use(corsForBrowsers());
  // Bodies are read after the guards (RequestBodyGuard), not here: credentials come first.
  app.use(refuseContentEncoding);
  app.use(credentials(app.get(CredentialsMiddleware)));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ProblemDetailsFilter());
  if (config.DOCS_ENABLED) setupOpenApi(app);
  await app.init();
  return app;
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}
