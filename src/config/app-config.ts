import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync,
} from 'class-validator';

const toBool = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? ['1', 'true', 'yes', 'on'].includes(value.toLowerCase()) : value;
const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() !== '' ? Number(value) : value;

/**
 * Every setting the server reads, with its default. `.env.example` documents the same list;
 * the env-example spec keeps the two in step.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test']) NODE_ENV = 'development';
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT = 3000;
  @IsString() HOST = '0.0.0.0';
  /** Public origin used to build absolute URLs (Location headers, media links). */
  @IsString() PUBLIC_BASE_URL = 'http://localhost:3000';

  @IsOptional() @IsString() DATABASE_URL?: string;
  @IsString() EMBEDDED_PG_DIR = '.data/postgres';
  @Transform(toInt) @IsInt() @Min(1) @Max(65535) EMBEDDED_PG_PORT = 54329;
  @Transform(toInt) @IsInt() @Min(1) @Max(200) DB_POOL_SIZE = 10;
  @Transform(toBool) @IsBoolean() MIGRATIONS_RUN = true;

  @Transform(toBool) @IsBoolean() BOOTSTRAP_ENABLED = true;
  @IsOptional() @Matches(/^sb_(live|test)_[A-Za-z0-9]{32,}$/, { message: 'BOOTSTRAP_API_KEY must look like sb_live_<32+ base62>' })
  BOOTSTRAP_API_KEY?: string;
  @Matches(/^[a-z0-9][a-z0-9-]{0,62}$/) BOOTSTRAP_SITE = 'demo';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL = 'info';
  @IsString() BODY_LIMIT = '1mb';
  @IsString() TRUST_PROXY = 'false';
  @Transform(toBool) @IsBoolean() DOCS_ENABLED = true;

  @Transform(toInt) @IsInt() @Min(1000) RATE_LIMIT_TTL_MS = 60_000;
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_PUBLIC_MAX = 120;

  @Transform(toInt) @IsInt() @Min(0) ACCOUNT_DELETION_GRACE_SECONDS = 7 * 24 * 3600;
  @Transform(toInt) @IsInt() @Min(60) IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

  @Transform(toBool) @IsBoolean() JOBS_ENABLED = true;
  @Transform(toInt) @IsInt() @Min(100) OUTBOX_POLL_MS = 1000;
  @Transform(toInt) @IsInt() @Min(1) @Max(100) JOBS_POLL_SECONDS = 2;
  @Transform(toInt) @IsInt() @Min(1000) SHUTDOWN_TIMEOUT_MS = 10_000;
}

export const CONFIG_KEYS = Object.keys(new AppConfig()).concat('DATABASE_URL', 'BOOTSTRAP_API_KEY');

/** Reads settings from `env` (defaults for what is unset) and fails at boot on bad values. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const raw: Record<string, string> = {};
  for (const key of CONFIG_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const config = plainToInstance(AppConfig, raw);
  const errors = validateSync(config, { whitelist: true });
  if (errors.length > 0) {
    const lines = errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? {}).join(', ')}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return config;
}
