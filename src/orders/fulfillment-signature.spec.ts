import { createHmac } from 'node:crypto';
import {
  newFulfillmentSecret,
  parseSignatureHeader,
  signatureHeader,
  SIGNATURE_TOLERANCE_SECONDS,
  verifySignature,
} from './fulfillment-signature';

describe('fulfillment notification signatures', () => {
  const secret = 'fsec_test_secret';
  const body = Buffer.from('{"id":"ntf_1","orderId":42,"status":"canceled"}');
  const t = 1_795_567_200;

  it('signs HMAC-SHA256(secret, "<t>.<raw body>") in hex, as the documented example', () => {
    const hex = createHmac('sha256', secret).update(`${t}.${body.toString()}`).digest('hex');
    expect(signatureHeader(secret, t, body)).toBe(`t=${t},v1=${hex}`);
    // docs/orders.md shows this very value.
    expect(signatureHeader('fsec_example', 1795567200, '{"id":"ntf_1","orderId":42,"status":"canceled"}')).toBe(
      't=1795567200,v1=bf885cd65895fe7e65933ef7ca400afd9c2a6ce16bb40d73a104844149caa654',
    );
  });

  it('parses t and every v1; ignores other schemes; refuses anything malformed', () => {
    const v = 'ab'.repeat(32);
    expect(parseSignatureHeader(`t=12,v1=${v}`)).toEqual({ timestamp: 12, signatures: [Buffer.from(v, 'hex')] });
    expect(parseSignatureHeader(` t=12 , v0=zz , v1=${v},v1=${'cd'.repeat(32)}`)?.signatures).toHaveLength(2);
    for (const bad of [
      undefined,
      '',
      `v1=${v}`,
      't=12',
      `t=12,t=13,v1=${v}`,
      `t=-1,v1=${v}`,
      `t=1.5,v1=${v}`,
      `t=12,v1=${v.slice(2)}`,
      `t=12,v1=${'zz'.repeat(32)}`,
      `t=12;v1=${v}`,
      `t=12,v1`,
      ['t=12', `v1=${v}`],
      `t=12,${Array(9).fill(`v1=${v}`).join(',')}`,
      `t=12,v1=${v},${'x'.repeat(3000)}=1`,
    ])
      expect(parseSignatureHeader(bad)).toBeNull();
  });

  it('verifies with any of the secrets, within 5 minutes either way', () => {
    const header = signatureHeader(secret, t, body);
    expect(verifySignature(header, body, [secret], t)).toBe('ok');
    expect(verifySignature(header, body, ['fsec_other', secret], t + SIGNATURE_TOLERANCE_SECONDS)).toBe('ok');
    expect(verifySignature(header, body, [secret], t - SIGNATURE_TOLERANCE_SECONDS)).toBe('ok');
    expect(verifySignature(header, body, [secret], t + SIGNATURE_TOLERANCE_SECONDS + 1)).toBe('stale');
    expect(verifySignature(header, body, [secret], t - SIGNATURE_TOLERANCE_SECONDS - 1)).toBe('stale');
    expect(verifySignature(header, body, ['fsec_other'], t)).toBe('mismatch');
    expect(verifySignature(header, Buffer.from(`${body.toString()} `), [secret], t)).toBe('mismatch');
    expect(verifySignature(header, body, [], t)).toBe('mismatch');
    expect(verifySignature('t=1', body, [secret], t)).toBe('malformed');
    // The timestamp is signed: moving it breaks the signature.
    const moved = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifySignature(moved, body, [secret], t)).toBe('mismatch');
  });

  it('takes one spelling of a header: upper-case hex and a zero-padded t are malformed', () => {
    const header = signatureHeader(secret, t, body);
    const v1 = header.slice(header.indexOf('v1=') + 3);
    expect(verifySignature(header, body, [secret], t)).toBe('ok');
    for (const other of [
      `t=${t},v1=${v1.toUpperCase()}`,
      `t=${t},v1=${v1.slice(0, 10).toUpperCase()}${v1.slice(10)}`,
      `t=0${t},v1=${v1}`,
      `t=000${t},v1=${v1}`,
    ])
      expect(verifySignature(other, body, [secret], t)).toBe('malformed');
    expect(parseSignatureHeader(`t=0,v1=${v1}`)?.timestamp).toBe(0);
  });

  it('makes secrets of 32 random bytes', () => {
    const a = newFulfillmentSecret();
    expect(a).toMatch(/^fsec_[A-Za-z0-9_-]{43}$/);
    expect(newFulfillmentSecret()).not.toBe(a);
  });
});
