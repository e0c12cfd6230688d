import {
  challengeRecord,
  hasChallenge,
  hasDkimKey,
  hostnameProblem,
  newClaim,
  txtValues,
} from './sender-domain-records';

describe('hostnameProblem', () => {
  it.each(['example.com', 'news.example.com', 'a-b.c-d.example', 'xn--bcher-kva.example', `${'a'.repeat(63)}.com`])(
    'accepts %s',
    (d) => expect(hostnameProblem(d)).toBeNull(),
  );

  it.each([
    ['Example.com', 'must be lower case'],
    ['example.com.', 'must not end with a dot'],
    ['com', 'must be a domain name such as example.com'],
    ['10.0.0.1', 'must be a domain name, not an IP address'],
    ['a_b.example', 'must be a domain name such as example.com'],
    ['-a.example', 'must be a domain name such as example.com'],
    ['a-.example', 'must be a domain name such as example.com'],
    ['.example', 'must be a domain name such as example.com'],
    [`${'a'.repeat(64)}.com`, 'must be a domain name such as example.com'],
    [`${'a.'.repeat(126)}com`, 'must be at most 253 characters'],
  ])('refuses %s: %s', (d, message) => expect(hostnameProblem(d)).toBe(message));
});

describe('records', () => {
  it('a claim has its own challenge, selector and an RSA key whose public half is the record', async () => {
    const [one, two] = await Promise.all([newClaim(), newClaim()]);
    expect(one.challengeToken).not.toBe(two.challengeToken);
    expect(one.dkimSelector).not.toBe(two.dkimSelector);
    expect(one.dkimPrivateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('finds the challenge only with its exact value, its chunks joined', () => {
    const record = challengeRecord('example.com', 'tok');
    expect(hasChallenge(txtValues([['sitebase-verification=', 'tok']]), record)).toBe(true);
    expect(hasChallenge(txtValues([['sitebase-verification=tok2'], ['v=spf1 -all']]), record)).toBe(false);
  });

  it('finds a DKIM key by its p= (spaces and chunking ignored), for rsa only', () => {
    const key = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx';
    expect(hasDkimKey(txtValues([['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0B', 'AQEFAAOCAQ8AMIIBCgKCAQEAx']]), key)).toBe(
      true,
    );
    expect(hasDkimKey(['p=MIIBIjANBgkqhkiG9w0B AQEFAAOCAQ8AMIIBCgKCAQEAx'], key)).toBe(true);
    expect(hasDkimKey([`v=DKIM1; k=ed25519; p=${key}`], key)).toBe(false);
    expect(hasDkimKey([`v=DKIM1; k=rsa; p=${key}AA`], key)).toBe(false);
    expect(hasDkimKey([`v=DKIM1; k=rsa; p=`], key)).toBe(false);
  });
});
