import { verpToken } from '../verp';
import { parseMailgun } from './mailgun';
import { parsePostmark } from './postmark';
import type { Parsed } from './provider-event';
import { parseSendgrid } from './sendgrid';

/** The webhook parsers of the relays that return our correlation token (provider-headers.ts). */
describe('relay webhook parsers', () => {
  const token = verpToken(Buffer.alloc(32, 7), 4242);
  const guid = 'd12c2f1c-60f3-4258-b163-d17052546ae4';
  const kind = (p: Parsed) => (p === 'ignored' ? 'ignored' : p.kind);
  const tokenOf = (p: Parsed) => (p === 'ignored' ? 'ignored' : p.verpToken);

  describe('Postmark', () => {
    const bounce = (Type: string, extra: object = {}) => ({
      RecordType: 'Bounce',
      Type,
      MessageID: guid,
      Email: 'X@Example.org',
      Details: 'smtp;550 5.1.1 no such user',
      Metadata: { sitebase_verp: token },
      ...extra,
    });

    it('reads the token from Metadata, beside Postmark’s own MessageID', () => {
      expect(parsePostmark(bounce('HardBounce'))).toEqual({
        kind: 'hard',
        source: 'postmark',
        recipient: 'x@example.org',
        messageId: guid,
        envelopeSender: null,
        verpToken: token,
        status: '5.1.1',
        diagnostic: 'HardBounce: smtp;550 5.1.1 no such user',
      });
      const complaint = {
        RecordType: 'SpamComplaint',
        MessageID: guid,
        Email: 'x@example.org',
        Metadata: { sitebase_verp: token },
      };
      expect(tokenOf(parsePostmark(complaint))).toBe(token);
      expect(tokenOf(parsePostmark(bounce('HardBounce', { Metadata: undefined })))).toBeNull();
      expect(tokenOf(parsePostmark(bounce('HardBounce', { Metadata: { sitebase_verp: 'not a token' } })))).toBeNull();
      expect(tokenOf(parsePostmark(bounce('HardBounce', { Metadata: 'sitebase_verp' })))).toBeNull();
    });

    it('a bad address is hard; the receiver’s decisions (Blocked, SpamNotification, DMARCPolicy) and temporary failures soft', () => {
      for (const type of ['HardBounce', 'BadEmailAddress']) expect(kind(parsePostmark(bounce(type)))).toBe('hard');
      for (const type of ['SoftBounce', 'Transient', 'DnsError', 'Blocked', 'SpamNotification', 'DMARCPolicy'])
        expect(kind(parsePostmark(bounce(type)))).toBe('soft');
    });

    it('Postmark’s own account state and replies that are no bounce are ignored', () => {
      for (const type of [
        'ManuallyDeactivated',
        'Unconfirmed',
        'SMTPApiError',
        'AutoResponder',
        'ChallengeVerification',
        'Unsubscribe',
        'Subscribe',
        'AddressChange',
        'Unknown',
      ])
        expect(parsePostmark(bounce(type))).toBe('ignored');
    });
  });

  describe('SendGrid', () => {
    it('reads the unique argument, a top-level field of the event, also of a spamreport without smtp-id', () => {
      const spam = { event: 'spamreport', email: 'x@example.org', timestamp: 1, sitebase_verp: token };
      expect(parseSendgrid(spam)).toEqual({
        kind: 'complaint',
        source: 'sendgrid',
        recipient: 'x@example.org',
        messageId: null,
        envelopeSender: null,
        verpToken: token,
        status: null,
        diagnostic: 'sendgrid: spamreport',
      });
      const bounce = {
        event: 'bounce',
        type: 'bounce',
        email: 'x@example.org',
        'smtp-id': '<a@b>',
        sitebase_verp: token,
      };
      expect(tokenOf(parseSendgrid(bounce))).toBe(token);
      expect(tokenOf(parseSendgrid({ ...bounce, sitebase_verp: 7 }))).toBeNull();
      expect(
        tokenOf(parseSendgrid({ ...bounce, unique_args: { sitebase_verp: token }, sitebase_verp: undefined })),
      ).toBeNull();
    });
  });

  describe('Mailgun', () => {
    it('reads the token from user-variables', () => {
      const complained = {
        'event-data': { event: 'complained', recipient: 'x@example.org', 'user-variables': { sitebase_verp: token } },
      };
      expect(parseMailgun(complained)).toEqual({
        kind: 'complaint',
        source: 'mailgun',
        recipient: 'x@example.org',
        messageId: null,
        envelopeSender: null,
        verpToken: token,
        status: null,
        diagnostic: 'mailgun: complained',
      });
      const data = complained['event-data'];
      expect(tokenOf(parseMailgun({ 'event-data': { ...data, 'user-variables': undefined } }))).toBeNull();
      expect(tokenOf(parseMailgun({ 'event-data': { ...data, 'user-variables': [token] } }))).toBeNull();
      expect(tokenOf(parseMailgun({ 'event-data': { ...data, 'user-variables': { other: token } } }))).toBeNull();
    });
  });
});
