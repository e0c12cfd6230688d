import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kindOfStatus, parseBounceReport } from './bounce-report';

/** A fixture of test/fixtures/bounces with its placeholders filled in. */
export function fixture(name: string, values: Record<string, string>): string {
  const text = readFileSync(join(__dirname, '../../../test/fixtures/bounces', name), 'utf8');
  return text.replace(/\{\{([A-Z_]+)\}\}/g, (_m, key: string) => values[key] ?? '');
}

const VALUES = {
  BOUNCE_ADDRESS: 'bounces@b.example.com',
  RETURN_PATH: 'bounces+1z-abcdefghijklmnop@b.example.com',
  RECIPIENT: 'gone@example.org',
  MESSAGE_ID: '6f1c2d3e-0000-4000-8000-000000000001@sitebase.example.com',
  SITEBASE_ID: '71',
};
const original = {
  messageId: VALUES.MESSAGE_ID,
  sitebaseId: 71,
  returnPath: VALUES.RETURN_PATH,
};

describe('parseBounceReport', () => {
  it.each([
    ['rfc3464-hard.eml', '5.0.0'],
    ['postfix-hard.eml', '5.1.1'],
    ['exim-hard.eml', '5.0.0'],
    ['gmail-hard.eml', '5.1.1'],
    ['outlook-hard.eml', '5.1.10'],
  ])('%s is a hard bounce naming the original', async (name, status) => {
    const report = await parseBounceReport(fixture(name, VALUES));
    expect(report).toEqual({
      kind: 'hard',
      source: 'dsn',
      status,
      diagnostic: name === 'rfc3464-hard.eml' ? null : expect.any(String),
      recipient: 'gone@example.org',
      original,
    });
  });

  it('a 4.x.x failure is soft; a delay is no bounce', async () => {
    expect(await parseBounceReport(fixture('postfix-soft.eml', VALUES))).toEqual(
      expect.objectContaining({ kind: 'soft', status: '4.2.2', diagnostic: 'smtp; 452 4.2.2 Mailbox full' }),
    );
    expect(await parseBounceReport(fixture('postfix-delayed.eml', VALUES))).toBeNull();
  });

  it('an ARF abuse report is a complaint; another feedback type is not', async () => {
    const arf = fixture('arf-abuse.eml', VALUES);
    expect(await parseBounceReport(arf)).toEqual({
      kind: 'complaint',
      source: 'arf',
      status: null,
      diagnostic: 'feedback-type: abuse',
      recipient: 'gone@example.org',
      original,
    });
    expect(await parseBounceReport(arf.replace('Feedback-Type: abuse', 'Feedback-Type: not-spam'))).toBeNull();
  });

  it('an ordinary mail, or a report without its parts, is nothing', async () => {
    expect(await parseBounceReport('From: a@example.com\r\nSubject: hi\r\n\r\nHello')).toBeNull();
    expect(await parseBounceReport('Content-Type: multipart/report; boundary=x\r\n\r\n--x--\r\n')).toBeNull();
  });

  it('reads the kind from the status, else from the SMTP code of the diagnostic', () => {
    expect(kindOfStatus('5.7.1', null)).toBe('hard');
    expect(kindOfStatus('4.4.7', 'smtp; 550 no')).toBe('soft');
    expect(kindOfStatus(null, 'smtp; 550 5.1.1 unknown')).toBe('hard');
    expect(kindOfStatus('2.0.0', 'smtp; 421 later')).toBe('soft');
    expect(kindOfStatus('x', 'nothing')).toBeNull();
  });
});
