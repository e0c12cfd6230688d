import express from 'express';
import { printed } from '../../test/support/startup-printed';
import { loadConfigs } from './configs';
import { Setting, settingsOf } from './setting';
import { int } from './setting-kinds';

/**
 * What right values read as (settings.spec.ts feeds every setting wrong ones), and the settings
 * an unset variable is wrong for because another setting needs it.
 */

/** Every class's settings in one object: the cases below name settings, not their classes. */
function loadConfig(env: Record<string, string>): Record<string, unknown> {
  return Object.assign({}, ...Object.values(loadConfigs(env))) as Record<string, unknown>;
}

describe('settings read right values, and need the ones others require', () => {
  it.each([
    ['BODY_LIMIT', '1mb', 1024 * 1024],
    ['BODY_LIMIT', '512kb', 512 * 1024],
    ['BODY_LIMIT', '1.5MB', 1.5 * 1024 * 1024],
    ['BODY_LIMIT', ' 64 kb ', 64 * 1024],
    ['BODY_LIMIT', '2048', 2048],
    ['BODY_LIMIT', '100mb', 100 * 1024 * 1024],
    ['MEDIA_MAX_BYTES', '26214400', 25 * 1024 * 1024],
    ['MEDIA_MAX_BYTES', '25mb', 25 * 1024 * 1024],
    ['BOUNCE_SMTP_MAX_BYTES', '60000', 60000],
    ['PORT', ' 8080 ', 8080],
    ['PORT', '0', 0],
    ['WORKERS', '-0', 0],
    ['DOCS_ENABLED', 'YES', true],
    ['DOCS_ENABLED', 'off', false],
    ['TRUST_PROXY', 'false', false],
    ['TRUST_PROXY', 'true', true],
    ['TRUST_PROXY', '0', 0],
    ['TRUST_PROXY', '2', 2],
    ['TRUST_PROXY', 'loopback', ['loopback']],
    [
      'TRUST_PROXY',
      '10.0.0.5, 10.0.0.0/8,fd00::/8 ,uniquelocal',
      ['10.0.0.5', '10.0.0.0/8', 'fd00::/8', 'uniquelocal'],
    ],
    ['TRUST_PROXY', '10.0.0.0/255.0.0.0,::1', ['10.0.0.0/255.0.0.0', '::1']],
    ['MEDIA_THUMBNAIL_WIDTHS', 'none', []],
    ['MEDIA_THUMBNAIL_WIDTHS', ' 150 , 600 ', [150, 600]],
    ['DATABASE_URL', 'postgresql://app:p%40ss@db:5433/sitebase?sslmode=require', undefined],
    ['DATABASE_URL', 'postgres:///sitebase?host=/var/run/postgresql', undefined],
    ['SMTP_URL', 'smtps://user:pass@mail.example.com:465', undefined],
    ['MAIL_FROM', '"Sitebase, Inc." <no-reply@example.com>', undefined],
    ['MAIL_FROM', 'no-reply@example.com', undefined],
    ['HOST', '::', undefined],
    ['HOST', 'localhost', undefined],
    ['METRICS_HOST', '10.0.0.7', undefined],
    ['S3_REGION', 'auto', undefined],
    ['PUBLIC_BASE_URL', 'https://example.com/api', undefined],
  ] as const)('reads %s=%j', (key, text, value) => {
    const config = loadConfig({ [key]: text });
    expect(config[key]).toEqual(value === undefined ? text.trim() : value);
  });

  it('hands Express a trust proxy it takes, meaning what was set', () => {
    const trust = (text: string) => {
      const app = express();
      app.set('trust proxy', loadConfigs({ TRUST_PROXY: text }).http.TRUST_PROXY);
      return app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    };
    expect([trust('2')('203.0.113.9', 1), trust('2')('203.0.113.9', 2)]).toEqual([true, false]);
    const subnets = trust('10.0.0.0/8, fd00::/8, loopback');
    expect(['10.1.2.3', 'fd00::1', '127.0.0.1', '11.0.0.1'].map((a) => subnets(a, 0))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(trust('10.0.0.0/255.255.0.0')('10.0.9.9', 0)).toBe(true);
    expect(trust('false')('127.0.0.1', 0)).toBe(false);
  });

  it.each([
    [{ BOUNCE_SMTP_PORT: '2525' }, 'BOUNCE_DOMAIN', 'BOUNCE_SMTP_PORT is set'],
    [{ MEDIA_STORAGE: 's3' }, 'S3_BUCKET', 'MEDIA_STORAGE=s3'],
    [{ S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' }, 'S3_SECRET_ACCESS_KEY', 'S3_ACCESS_KEY_ID is set'],
    [{ S3_SECRET_ACCESS_KEY: 'secret' }, 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY is set'],
    [
      { STRIPE_TEST_SECRET_KEY: `sk_test_${'a'.repeat(24)}`, STRIPE_TEST_WEBHOOK_SECRET: `whsec_${'b'.repeat(32)}` },
      'SECRETS_ENCRYPTION_KEY',
      'STRIPE_TEST_SECRET_KEY is set',
    ],
    [
      { STRIPE_TEST_SECRET_KEY: `sk_test_${'a'.repeat(24)}`, SECRETS_ENCRYPTION_KEY: 'a'.repeat(64) },
      'STRIPE_TEST_WEBHOOK_SECRET',
      'STRIPE_TEST_SECRET_KEY is set',
    ],
  ])('%j without %s: one line saying it is required', (env, key, because) => {
    expect(printed(env)?.split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^Sitebase could not start: Missing setting ${key}: it is required when ${because}; use `),
      ),
    ]);
  });

  it('a property of a settings class without @Setting is a mistake found at once', () => {
    class Settings {
      @Setting(int(0, 1)) DECLARED = 0;
      FORGOTTEN = 1;
    }
    expect(() => settingsOf(Settings)).toThrow('Settings: FORGOTTEN without @Setting');
  });
});
