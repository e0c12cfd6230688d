import { StartupError } from '../startup-errors';
import { CONFIG_CLASSES, loadConfigs, settingKeys } from './configs';
import { Setting } from './setting';
import { int } from './setting-kinds';

/** Every class's settings in one object: the assertions below name settings, not their classes. */
function loadConfig(env: Record<string, string>): Record<string, unknown> {
  return Object.assign({}, ...Object.values(loadConfigs(env))) as Record<string, unknown>;
}

/** The message loadConfig throws, or null when the settings load. */
function loadError(env: Record<string, string>): string | null {
  try {
    loadConfig(env);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('loadConfigs', () => {
  it('gives the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    const defaults = Object.values(CONFIG_CLASSES).map((type) => new type());
    expect(config).toEqual({ ...Object.assign({}, ...defaults), PUBLIC_BASE_URL: 'http://localhost:3000' });
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
    expect(loadError({ PUBLIC_BASE_URL: 'api.example.com' })).toBe(
      'Invalid setting PUBLIC_BASE_URL="api.example.com": use an http(s) URL such as https://api.example.com.',
    );
  });

  it('USER_OTP_EMAIL_DAILY_LIMIT: 20 codes per address a day unless set, at least 1', () => {
    expect(loadConfig({}).USER_OTP_EMAIL_DAILY_LIMIT).toBe(20);
    expect(loadConfig({ USER_OTP_EMAIL_DAILY_LIMIT: '5' }).USER_OTP_EMAIL_DAILY_LIMIT).toBe(5);
    expect(loadError({ USER_OTP_EMAIL_DAILY_LIMIT: '0' })).toContain('USER_OTP_EMAIL_DAILY_LIMIT');
    expect(loadError({ USER_OTP_EMAIL_DAILY_LIMIT: 'many' })).toContain('USER_OTP_EMAIL_DAILY_LIMIT');
  });

  it('SES_SNS_TOPIC_ARNS: SNS topic ARNs, comma-separated (empty: the SES route is off)', () => {
    const two = 'arn:aws:sns:eu-west-1:123456789012:ses-feedback , arn:aws-cn:sns:cn-north-1:123456789012:t.fifo';
    expect(loadConfig({ SES_SNS_TOPIC_ARNS: two }).SES_SNS_TOPIC_ARNS).toEqual([
      'arn:aws:sns:eu-west-1:123456789012:ses-feedback',
      'arn:aws-cn:sns:cn-north-1:123456789012:t.fifo',
    ]);
    expect(loadConfig({}).SES_SNS_TOPIC_ARNS).toEqual([]);
    for (const bad of [
      'ses-feedback',
      'arn:aws:sqs:eu-west-1:123456789012:q',
      'arn:aws:sns:eu-west-1:12345:t',
      'arn:aws:sns:eu-west-1:123456789012:t,',
      'arn:aws:sns:eu-west-1:123456789012:*',
    ])
      expect(loadError({ SES_SNS_TOPIC_ARNS: bad })).toMatch(
        /^Invalid setting SES_SNS_TOPIC_ARNS="[^\n]*": use SNS topic ARNs separated by commas/,
      );
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
    [
      'a port that is not a number',
      { PORT: 'eighty' },
      'Invalid setting PORT="eighty": use a whole number from 0 to 65535.',
    ],
    ['a port out of range', { PORT: '70000' }, 'Invalid setting PORT="70000": use a whole number from 0 to 65535.'],
    [
      'a fractional count',
      { RATE_LIMIT_PUBLIC_MAX: '2.5' },
      'Invalid setting RATE_LIMIT_PUBLIC_MAX="2.5": use a whole number from 1 to 1000000000.',
    ],
    [
      'a negative grace period',
      { ACCOUNT_DELETION_GRACE_SECONDS: '-1' },
      'Invalid setting ACCOUNT_DELETION_GRACE_SECONDS="-1": use a whole number from 0 to 31536000.',
    ],
    [
      'a rate-limit window under a second',
      { RATE_LIMIT_TTL_MS: '10' },
      'Invalid setting RATE_LIMIT_TTL_MS="10": use a whole number from 1000 to 86400000.',
    ],
    [
      'an unknown NODE_ENV',
      { NODE_ENV: 'staging' },
      'Invalid setting NODE_ENV="staging": use one of development, production, test.',
    ],
    [
      'an unknown log level',
      { LOG_LEVEL: 'verbose' },
      'Invalid setting LOG_LEVEL="verbose": use one of fatal, error, warn, info, debug, trace, silent.',
    ],
    [
      'a list with a value out of range',
      { MEDIA_THUMBNAIL_WIDTHS: '150,9000' },
      'Invalid setting MEDIA_THUMBNAIL_WIDTHS="150,9000": use at most 10 whole numbers from 16 to 8192, separated by commas (or none).',
    ],
    [
      'a malformed bootstrap key, without showing it',
      { BOOTSTRAP_API_KEY: 'sb_live_short' },
      'Invalid setting BOOTSTRAP_API_KEY=(value hidden): use an API key such as sb_live_<32+ base62>.',
    ],
    [
      'an SMTP URL, without showing its password',
      { SMTP_URL: 'http://mailer:s3cret@mail.example.com' },
      'Invalid setting SMTP_URL=(value hidden): use an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587.',
    ],
    [
      'a bootstrap site that is not a site name',
      { BOOTSTRAP_SITE: 'Demo Site' },
      'Invalid setting BOOTSTRAP_SITE="Demo Site": use a site name: lowercase letters, digits and dashes (at most 63), not starting with a dash.',
    ],
    [
      'S3 storage without a bucket',
      { MEDIA_STORAGE: 's3' },
      'Missing setting S3_BUCKET: it is required when MEDIA_STORAGE=s3; use a bucket name: 3 to 63 lowercase letters, digits, dots and dashes.',
    ],
    // A typo must not silently switch a feature off.
    [
      'a boolean typo',
      { BOOTSTRAP_ENABLED: 'ture' },
      'Invalid setting BOOTSTRAP_ENABLED="ture": use true or false (also 1/0, yes/no, on/off).',
    ],
    [
      'a boolean that is a word',
      { JOBS_ENABLED: 'enabled' },
      'Invalid setting JOBS_ENABLED="enabled": use true or false (also 1/0, yes/no, on/off).',
    ],
  ])('rejects %s in one line: the setting, its value and what it accepts', (_label, env, message) => {
    expect(loadError(env)).toBe(message);
  });

  it('lists every bad setting at once, one per line', () => {
    const error = loadError({ PORT: 'x', NODE_ENV: 'staging', DOCS_ENABLED: 'maybe' });
    expect(
      error
        ?.split('\n')
        .map((line) => /^Invalid setting (\w+)=/.exec(line)?.[1])
        .sort(),
    ).toEqual(['DOCS_ENABLED', 'NODE_ENV', 'PORT']);
  });

  it('fails as a StartupError, which main prints without a stack', () => {
    expect(() => loadConfig({ PORT: 'x' })).toThrow(StartupError);
  });

  it('accepts a well-formed bootstrap key', () => {
    const key = `sb_live_${'a1B2'.repeat(10)}`;
    expect(loadConfig({ BOOTSTRAP_API_KEY: key }).BOOTSTRAP_API_KEY).toBe(key);
  });

  it('gives each class its own settings, each read once', () => {
    const configs = loadConfigs({ PORT: '8080', MEDIA_MAX_FILES: '3' });
    expect(configs.server).toBeInstanceOf(CONFIG_CLASSES.server);
    expect([configs.server.PORT, configs.media.MEDIA_MAX_FILES]).toEqual([8080, 3]);
    expect(configs.media).not.toHaveProperty('PORT');
  });

  it('refuses a variable that two classes declare: one line of .env would have two meanings', () => {
    class One {
      @Setting(int(0, 1)) SHARED = 0;
    }
    class Other {
      @Setting(int(0, 9)) SHARED = 5;
      @Setting(int(0, 1)) OWN = 0;
    }
    expect(settingKeys([One])).toEqual(['SHARED']);
    expect(() => settingKeys([One, Other])).toThrow('SHARED declared by two settings classes');
  });
});
