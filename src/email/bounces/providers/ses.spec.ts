import { makeSnsSigner, signedSns, SnsSigner } from '../../../../test/support/sns';
import { MalformedEvent } from './provider-event';
import {
  NotSns,
  parseSes,
  snsAge,
  snsCanonicalString,
  snsCertificateKey,
  SnsMessage,
  snsMessage,
  snsUrlAllowed,
  verifySns,
} from './ses';

const base = {
  MessageId: 'm-1',
  TopicArn: 'arn:aws:sns:us-east-1:123456789012:t',
  Message: 'line 1\nline 2',
  Timestamp: '2024-01-01T00:00:00.000Z',
  Signature: 'x',
  SignatureVersion: '1',
  SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
};

describe('SNS canonical string (the fields each type signs, in order)', () => {
  it('a Notification: Message, MessageId, Subject when present, Timestamp, TopicArn, Type', () => {
    const n = { ...base, Type: 'Notification' } as SnsMessage;
    expect(snsCanonicalString(n)).toBe(
      'Message\nline 1\nline 2\nMessageId\nm-1\nTimestamp\n2024-01-01T00:00:00.000Z\n' +
        'TopicArn\narn:aws:sns:us-east-1:123456789012:t\nType\nNotification\n',
    );
    expect(snsCanonicalString({ ...n, Subject: 'Hi' })).toBe(
      'Message\nline 1\nline 2\nMessageId\nm-1\nSubject\nHi\nTimestamp\n2024-01-01T00:00:00.000Z\n' +
        'TopicArn\narn:aws:sns:us-east-1:123456789012:t\nType\nNotification\n',
    );
    // Fields a Notification does not sign change nothing (UnsubscribeURL, a stray Token).
    expect(snsCanonicalString({ ...n, Token: 't', SubscribeURL: 'u' })).toBe(snsCanonicalString(n));
  });

  it('a SubscriptionConfirmation or UnsubscribeConfirmation: with SubscribeURL and Token, without Subject', () => {
    for (const Type of ['SubscriptionConfirmation', 'UnsubscribeConfirmation'] as const) {
      const c = { ...base, Type, SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?a=1', Token: 'tok', Subject: 'S' };
      expect(snsCanonicalString(c)).toBe(
        'Message\nline 1\nline 2\nMessageId\nm-1\nSubscribeURL\nhttps://sns.us-east-1.amazonaws.com/?a=1\n' +
          'Timestamp\n2024-01-01T00:00:00.000Z\nToken\ntok\nTopicArn\narn:aws:sns:us-east-1:123456789012:t\n' +
          `Type\n${Type}\n`,
      );
    }
  });

  it('a body that is not an SNS message (unknown Type, a signed field missing or not text) is NotSns', () => {
    expect(() => snsMessage({ ...base, Type: 'Notification' })).not.toThrow();
    for (const body of [
      {},
      [],
      'x',
      { ...base, Type: 'Other' },
      { ...base, Type: 'Notification', MessageId: 1 },
      { ...base, Type: 'Notification', Signature: '' },
      { ...base, Type: 'Notification', Subject: 5 },
      { ...base, Type: 'SubscriptionConfirmation' },
      { ...base, Type: 'SubscriptionConfirmation', SubscribeURL: 'https://sns.us-east-1.amazonaws.com/' },
    ]) {
      expect(() => snsMessage(body)).toThrow(NotSns);
    }
  });
});

describe('SNS URL rule (checked before any fetch)', () => {
  it.each([
    'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-9c6465fa.pem',
    'https://sns.eu-central-1.amazonaws.com/SimpleNotificationService-abc.pem',
    'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem',
    'https://sns.us-gov-west-1.amazonaws.com/x.pem',
  ])('certificate %s is allowed', (url) => expect(snsUrlAllowed(url, 'certificate')).toBe(true));

  it.each([
    'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://sns.us-east-1.amazonaws.com.evil.example/SimpleNotificationService-1.pem',
    'https://evil.example/sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://sns.us-east-1.amazonaws.com.cn.evil.example/x.pem',
    'https://s3.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://sns.amazonaws.com/SimpleNotificationService-1.pem',
    'https://x.sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://sns.us-east-1.amazonaws.com:8443/SimpleNotificationService-1.pem',
    'https://user:pw@sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://evil.example@sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem?x=1',
    'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem#x',
    'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.txt',
    'https://sns.us-east-1.amazonaws.com/a/../../x.pem',
    'https://127.0.0.1/SimpleNotificationService-1.pem',
    'https://[::1]/x.pem',
    'file:///etc/ssl/x.pem',
    'not a url',
    '',
  ])('certificate %s is refused', (url) => expect(snsUrlAllowed(url, 'certificate')).toBe(false));

  it('a SubscribeURL: https on an SNS host, any path and query', () => {
    expect(
      snsUrlAllowed('https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=a&Token=b', 'subscribe'),
    ).toBe(true);
    for (const url of [
      'http://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription',
      'https://sns.us-west-2.amazonaws.com.evil.example/?Action=ConfirmSubscription',
      'https://169.254.169.254/latest/meta-data/',
      'https://sns.us-west-2.amazonaws.com:444/',
    ]) {
      expect(snsUrlAllowed(url, 'subscribe')).toBe(false);
    }
  });
});

describe('SNS timestamp and signature', () => {
  let signer: SnsSigner;
  let other: SnsSigner;
  beforeAll(() => {
    signer = makeSnsSigner();
    other = makeSnsSigner();
  });

  it('at most an hour old, at most 5 minutes ahead, ISO 8601 UTC only', () => {
    const now = Date.parse('2024-01-01T12:00:00Z');
    expect(snsAge('2024-01-01T11:00:00.000Z', now)).toBe('ok');
    expect(snsAge('2024-01-01T10:59:59.000Z', now)).toBe('stale');
    expect(snsAge('2024-01-01T12:05:00Z', now)).toBe('ok');
    expect(snsAge('2024-01-01T12:05:01Z', now)).toBe('stale');
    for (const bad of ['2024-01-01 12:00:00', '1704110400', '2024-01-01T12:00:00+01:00', '2024-13-45T12:00:00Z'])
      expect(snsAge(bad, now)).toBe('malformed');
  });

  it('versions 1 (SHA1withRSA) and 2 (SHA256withRSA) verify; a changed field, another key or version do not', () => {
    const key = snsCertificateKey(signer.certificate, Date.now())!;
    expect(key).not.toBeNull();
    for (const version of ['1', '2'] as const) {
      const m = snsMessage(signedSns(signer, 'Notification', '{"a":1}', { version, subject: 'S' }));
      expect(verifySns(m, key)).toBe(true);
      expect(verifySns({ ...m, Message: '{"a":2}' }, key)).toBe(false);
      expect(verifySns({ ...m, Subject: undefined }, key)).toBe(false);
      expect(verifySns({ ...m, TopicArn: `${m.TopicArn}x` }, key)).toBe(false);
      expect(verifySns({ ...m, SignatureVersion: version === '1' ? '2' : '1' }, key)).toBe(false);
      expect(verifySns({ ...m, SignatureVersion: '3' }, key)).toBe(false);
      expect(verifySns(m, snsCertificateKey(other.certificate, Date.now())!)).toBe(false);
    }
    const c = snsMessage(signedSns(signer, 'SubscriptionConfirmation', 'join'));
    expect(verifySns(c, key)).toBe(true);
    expect(verifySns({ ...c, SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?other' }, key)).toBe(false);
    expect(verifySns({ ...c, Token: 'other' }, key)).toBe(false);
  });

  it('a certificate that is not current, not PEM or not RSA gives no key', () => {
    expect(snsCertificateKey(signer.certificate, Date.now() + 5 * 24 * 3600 * 1000)).toBeNull();
    expect(snsCertificateKey(signer.certificate, Date.now() - 24 * 3600 * 1000)).toBeNull();
    expect(snsCertificateKey('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', Date.now())).toBeNull();
    expect(snsCertificateKey(signer.privateKey, Date.now())).toBeNull();
  });
});

describe('SES events in an SNS Notification', () => {
  const mail = {
    source: 'Sitebase <bounces+abc-def@bounces.example.com>',
    messageId: '0100018c-ses-id',
    headers: [
      { name: 'From', value: 'a@example.com' },
      { name: 'Message-ID', value: '<ours@sitebase.test>' },
    ],
    commonHeaders: { messageId: '<common@sitebase.test>' },
  };
  const bounce = (bounceType: string, recipients = [{ emailAddress: 'X@Example.org', status: '5.1.1' }]) =>
    JSON.stringify({
      notificationType: 'Bounce',
      bounce: { bounceType, bounceSubType: 'General', bouncedRecipients: recipients },
      mail,
    });

  it('a Permanent bounce is hard, Transient and Undetermined soft; one event per recipient', () => {
    expect(parseSes(bounce('Permanent'))).toEqual([
      {
        kind: 'hard',
        source: 'ses',
        recipient: 'x@example.org',
        status: '5.1.1',
        diagnostic: 'Permanent/General',
        messageId: 'ours@sitebase.test',
        envelopeSender: 'bounces+abc-def@bounces.example.com',
        verpToken: null,
      },
    ]);
    expect(parseSes(bounce('Transient')).map((e) => e !== 'ignored' && e.kind)).toEqual(['soft']);
    expect(parseSes(bounce('Undetermined')).map((e) => e !== 'ignored' && e.kind)).toEqual(['soft']);
    const two = parseSes(
      bounce('Permanent', [
        { emailAddress: 'a@example.org', status: '5.1.1' },
        { emailAddress: 'b@example.org', diagnosticCode: 'smtp; 550 5.7.1 refused' } as never,
      ]),
    );
    expect(two.map((e) => e !== 'ignored' && [e.recipient, e.status, e.diagnostic])).toEqual([
      ['a@example.org', '5.1.1', 'Permanent/General'],
      ['b@example.org', '5.7.1', 'Permanent/General: smtp; 550 5.7.1 refused'],
    ]);
  });

  it('a Complaint (eventType of a configuration set too) per recipient; not-spam and other events ignored', () => {
    const complaint = (extra: object = {}) =>
      JSON.stringify({
        eventType: 'Complaint',
        complaint: { complainedRecipients: [{ emailAddress: 'c@example.org' }], ...extra },
        mail: { ...mail, headers: undefined },
      });
    expect(parseSes(complaint({ complaintFeedbackType: 'abuse' }))).toEqual([
      {
        kind: 'complaint',
        source: 'ses',
        recipient: 'c@example.org',
        status: null,
        diagnostic: 'ses: complaint (abuse)',
        messageId: 'common@sitebase.test',
        envelopeSender: 'bounces+abc-def@bounces.example.com',
        verpToken: null,
      },
    ]);
    expect(parseSes(complaint({ complaintFeedbackType: 'not-spam' }))).toEqual(['ignored']);
    for (const type of ['Delivery', 'Send', 'Open', 'DeliveryDelay'])
      expect(parseSes(JSON.stringify({ eventType: type, mail }))).toEqual(['ignored']);
  });

  it('what does not read as an SES event is a MalformedEvent', () => {
    for (const message of [
      'not json',
      '[]',
      '"Bounce"',
      '{}',
      bounce('Sometimes'),
      bounce('Permanent', []),
      bounce('Permanent', [{ emailAddress: 'not an address' } as never]),
      JSON.stringify({ notificationType: 'Complaint', complaint: {}, mail }),
    ]) {
      expect(() => parseSes(message)).toThrow(MalformedEvent);
    }
  });
});
