import { chooseSender, formatAddress, parseFromHeader, parseMailFrom } from './sender-policy';

const operator = parseMailFrom('Sitebase <no-reply@sitebase.test>');
const verified = new Set(['demo.test']);

describe('chooseSender', () => {
  it("shows a verified domain's address and signs with that domain", () => {
    expect(chooseSender({ email: 'news@demo.test', name: 'Demo' }, null, verified, operator)).toEqual({
      from: '"Demo" <news@demo.test>',
      replyTo: null,
      signingDomain: 'demo.test',
    });
  });

  it('sends an unverified address From MAIL_FROM under its name, with the address as Reply-To', () => {
    expect(chooseSender({ email: 'security@bank.example', name: 'Bank' }, null, verified, operator)).toEqual({
      from: '"Bank" <no-reply@sitebase.test>',
      replyTo: '"Bank" <security@bank.example>',
      signingDomain: null,
    });
    // Without a name of its own: MAIL_FROM's name.
    expect(chooseSender({ email: 'a@bank.example' }, null, verified, operator).from).toBe(
      '"Sitebase" <no-reply@sitebase.test>',
    );
  });

  it("keeps the mail's own Reply-To when the From is replaced", () => {
    expect(chooseSender({ email: 'a@bank.example' }, 'help@bank.example', verified, operator).replyTo).toBe(
      'help@bank.example',
    );
  });

  it('covers the exact domain only: a subdomain or a parent is not verified by it', () => {
    for (const email of ['a@news.demo.test', 'a@test', 'a@xdemo.test', 'a@demo.test.evil.example'])
      expect(chooseSender({ email }, null, verified, operator).signingDomain).toBeNull();
    expect(chooseSender({ email: 'A@DEMO.TEST' }, null, verified, operator).signingDomain).toBe('demo.test');
  });

  it("without an address, or with MAIL_FROM's own, goes From MAIL_FROM unsigned", () => {
    expect(chooseSender({}, null, verified, operator)).toEqual({
      from: '"Sitebase" <no-reply@sitebase.test>',
      replyTo: null,
      signingDomain: null,
    });
    expect(chooseSender({ email: 'no-reply@sitebase.test', name: 'Shop' }, null, verified, operator).from).toBe(
      '"Shop" <no-reply@sitebase.test>',
    );
  });
});

describe('parseFromHeader', () => {
  it('reads back what formatAddress wrote, quotes and commas included', () => {
    for (const m of [{ email: 'a@b.example', name: 'A "quoted", name' }, { email: 'a@b.example' }])
      expect(parseFromHeader(formatAddress(m))).toEqual(m);
  });
});
