import {
  CopyHeaders,
  CORRELATION_KEY,
  copyHeaders,
  correlatingProviders,
  correlationHeaders,
  correlationToken,
  isRelayHeader,
  PreparedHeader,
} from './provider-headers';
import { verpToken } from './verp';

describe('provider correlation headers', () => {
  const token = verpToken(Buffer.alloc(32, 7), 123456);
  const none = { POSTMARK_WEBHOOK_TOKEN: '', SENDGRID_WEBHOOK_PUBLIC_KEY: '', MAILGUN_WEBHOOK_SIGNING_KEY: '' };

  it('a provider counts once its webhook setting is set', () => {
    expect(correlatingProviders(none)).toEqual([]);
    expect(correlatingProviders({ ...none, POSTMARK_WEBHOOK_TOKEN: 'x'.repeat(24) })).toEqual(['postmark']);
    expect(correlatingProviders({ ...none, SENDGRID_WEBHOOK_PUBLIC_KEY: 'k' })).toEqual(['sendgrid']);
    expect(correlatingProviders({ ...none, MAILGUN_WEBHOOK_SIGNING_KEY: 'k' })).toEqual(['mailgun']);
  });

  it('each provider gets its own header with the token, in the shape its docs give', () => {
    // Prepared: nodemailer would RFC 2047-encode a JSON value, which no relay decodes.
    expect(correlationHeaders(['postmark'], token)).toEqual({
      'X-PM-Metadata-sitebase_verp': { prepared: true, value: token },
      'X-PM-KeepID': { prepared: true, value: 'true' },
    });
    const valueOf = (headers: CopyHeaders, name: string) => (headers[name] as PreparedHeader).value;
    const sendgrid = correlationHeaders(['sendgrid'], token);
    expect(Object.keys(sendgrid)).toEqual(['X-SMTPAPI']);
    expect(JSON.parse(valueOf(sendgrid, 'X-SMTPAPI'))).toEqual({ unique_args: { sitebase_verp: token } });
    const mailgun = correlationHeaders(['mailgun'], token);
    expect(Object.keys(mailgun)).toEqual(['X-Mailgun-Variables']);
    expect(JSON.parse(valueOf(mailgun, 'X-Mailgun-Variables'))).toEqual({ sitebase_verp: token });
    expect(Object.keys(correlationHeaders(['postmark', 'sendgrid', 'mailgun'], token)).sort()).toEqual([
      'X-Mailgun-Variables',
      'X-PM-KeepID',
      'X-PM-Metadata-sitebase_verp',
      'X-SMTPAPI',
    ]);
  });

  it('within Postmark’s limits: a key of at most 20 characters, a value of at most 80', () => {
    expect(CORRELATION_KEY.length).toBeLessThanOrEqual(20);
    const largest = verpToken(Buffer.alloc(32, 7), Number.MAX_SAFE_INTEGER);
    expect(largest.length).toBeLessThanOrEqual(80);
    expect(correlationToken({ sitebase_verp: largest })).toBe(largest);
  });

  it('nothing without a token (no VERP) or without a configured provider', () => {
    expect(correlationHeaders(['postmark', 'sendgrid', 'mailgun'], null)).toEqual({});
    expect(correlationHeaders([], token)).toEqual({});
  });

  it('a copy’s own relay instructions are dropped, whatever their case; its other headers kept', () => {
    const own = {
      'List-Unsubscribe': '<https://example.org/u>',
      'X-Campaign': '7',
      'x-pm-metadata-sitebase_verp': 'someone-else',
      'X-SMTPAPI': '{"unique_args":{"sitebase_verp":"forged"}}',
      'X-Mailgun-Variables': '{"sitebase_verp":"forged"}',
      'X-PM-Tag': 'x',
    };
    expect(copyHeaders(own, [], token)).toEqual({ 'List-Unsubscribe': '<https://example.org/u>', 'X-Campaign': '7' });
    expect(copyHeaders(own, ['sendgrid'], token)).toEqual({
      'List-Unsubscribe': '<https://example.org/u>',
      'X-Campaign': '7',
      'X-SMTPAPI': { prepared: true, value: JSON.stringify({ unique_args: { sitebase_verp: token } }) },
    });
    expect(copyHeaders(null, ['mailgun'], null)).toEqual({});
    expect(isRelayHeader('X-SMTPAPI-Other')).toBe(false);
    expect(isRelayHeader('X-Sitebase-Message-Id')).toBe(false);
  });

  it('reads a token only in a token’s shape (its signature is checked later)', () => {
    expect(correlationToken({ sitebase_verp: token })).toBe(token);
    expect(correlationToken({ sitebase_verp: ` ${token.toUpperCase()} ` })).toBe(token.toUpperCase());
    for (const value of [
      undefined,
      null,
      42,
      ['x'],
      '',
      'abc',
      `${token}x`,
      `${token}\n`.repeat(2),
      token.replace('-', '+'),
    ])
      expect(correlationToken({ sitebase_verp: value })).toBeNull();
    expect(correlationToken({ other: token })).toBeNull();
  });
});
