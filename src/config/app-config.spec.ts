import { AppConfig, loadConfig } from './app-config';

/** The message loadConfig throws, or null when the settings load. */
function loadError(env: Record<string, string>): string | null {
  try {
    loadConfig(env);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('loadConfig', () => {
  it('gives the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toEqual({ ...new AppConfig(), PUBLIC_BASE_URL: 'http://localhost:3000' });
    expect(config).toEqual(
      expect.objectContaining({
        NODE_ENV: 'development',
        PORT: 3000,
        HOST: '0.0.0.0',
        BOOTSTRAP_ENABLED: true,
        BOOTSTRAP_SITE: 'demo',
        MIGRATIONS_RUN: true,
        DOCS_ENABLED: true,
        JOBS_ENABLED: true,
        RATE_LIMIT_TTL_MS: 60_000,
        RATE_LIMIT_PUBLIC_MAX: 120,
        ACCOUNT_DELETION_GRACE_SECONDS: 604_800,
        IDEMPOTENCY_TTL_SECONDS: 86_400,
      }),
    );
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.BOOTSTRAP_API_KEY).toBeUndefined();
  });

  it('treats empty values as unset and ignores unrelated variables', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '', PATH: '/usr/bin', HOME: '/root' });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config).not.toHaveProperty('PATH');
  });

  it('PUBLIC_BASE_URL follows PORT unless it is set, without a trailing slash', () => {
    expect(loadConfig({ PORT: '3501' }).PUBLIC_BASE_URL).toBe('http://localhost:3501');
    expect(loadConfig({ PORT: '3501', PUBLIC_BASE_URL: 'https://api.example.com/' }).PUBLIC_BASE_URL).toBe(
      'https://api.example.com',
    );
    expect(loadError({ PUBLIC_BASE_URL: 'api.example.com' })).toContain('PUBLIC_BASE_URL must be an http(s) URL');
  });

  it('USER_OTP_EMAIL_DAILY_LIMIT: 20 codes per address a day unless set, at least 1', () => {
    expect(loadConfig({}).USER_OTP_EMAIL_DAILY_LIMIT).toBe(20);
    expect(loadConfig({ USER_OTP_EMAIL_DAILY_LIMIT: '5' }).USER_OTP_EMAIL_DAILY_LIMIT).toBe(5);
    expect(loadError({ USER_OTP_EMAIL_DAILY_LIMIT: '0' })).toContain('USER_OTP_EMAIL_DAILY_LIMIT');
    expect(loadError({ USER_OTP_EMAIL_DAILY_LIMIT: 'many' })).toContain('USER_OTP_EMAIL_DAILY_LIMIT');
  });

  it('parses integers', () => {
    const config = loadConfig({ PORT: '8080', ACCOUNT_DELETION_GRACE_SECONDS: '0', DB_POOL_SIZE: ' 25 ' });
    expect([config.PORT, config.ACCOUNT_DELETION_GRACE_SECONDS, config.DB_POOL_SIZE]).toEqual([8080, 0, 25]);
  });

  it.each([
    ['1', true],
    ['true', true],
    ['TRUE', true],
    ['yes', true],
    ['on', true],
    ['0', false],
    ['false', false],
    ['False', false],
    ['no', false],
    ['off', false],
  ])('parses the boolean %p as %p', (value, expected) => {
    expect(loadConfig({ DOCS_ENABLED: value }).DOCS_ENABLED).toBe(expected);
    expect(loadConfig({ BOOTSTRAP_ENABLED: value }).BOOTSTRAP_ENABLED).toBe(expected);
  });

  it.each([
    ['a port that is not a number', { PORT: 'eighty' }, 'PORT must be an integer number'],
    ['a port out of range', { PORT: '70000' }, 'PORT must not be greater than 65535'],
    ['a fractional count', { RATE_LIMIT_PUBLIC_MAX: '2.5' }, 'RATE_LIMIT_PUBLIC_MAX must be an integer number'],
    [
      'a negative grace period',
      { ACCOUNT_DELETION_GRACE_SECONDS: '-1' },
      'ACCOUNT_DELETION_GRACE_SECONDS must not be less than 0',
    ],
    ['a rate-limit window under a second', { RATE_LIMIT_TTL_MS: '10' }, 'RATE_LIMIT_TTL_MS must not be less than 1000'],
    [
      'an unknown NODE_ENV',
      { NODE_ENV: 'staging' },
      'NODE_ENV must be one of the following values: development, production, test',
    ],
    ['an unknown log level', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be one of the following values'],
    [
      'a malformed bootstrap key',
      { BOOTSTRAP_API_KEY: 'sb_live_short' },
      'BOOTSTRAP_API_KEY must look like sb_live_<32+ base62>',
    ],
    ['a bootstrap site that is not a site name', { BOOTSTRAP_SITE: 'Demo Site' }, 'BOOTSTRAP_SITE must match'],
    // A typo must not silently switch a feature off.
    ['a boolean typo', { BOOTSTRAP_ENABLED: 'ture' }, 'BOOTSTRAP_ENABLED must be a boolean value'],
    ['a boolean that is a word', { JOBS_ENABLED: 'enabled' }, 'JOBS_ENABLED must be a boolean value'],
  ])('rejects %s with a message naming the setting', (_label, env, message) => {
    const error = loadError(env);
    expect(error).toMatch(/^Invalid configuration:\n {2}/);
    expect(error).toContain(`\n  ${Object.keys(env)[0]}: `);
    expect(error).toContain(message);
  });

  it('lists every bad setting at once, one per line', () => {
    const error = loadError({ PORT: 'x', NODE_ENV: 'staging', DOCS_ENABLED: 'maybe' });
    expect(
      error
        ?.split('\n')
        .slice(1)
        .map((line) => line.trim().split(':')[0])
        .sort(),
    ).toEqual(['DOCS_ENABLED', 'NODE_ENV', 'PORT']);
  });

  it('accepts a well-formed bootstrap key', () => {
    const key = `sb_live_${'a1B2'.repeat(10)}`;
    expect(loadConfig({ BOOTSTRAP_API_KEY: key }).BOOTSTRAP_API_KEY).toBe(key);
  });
});
