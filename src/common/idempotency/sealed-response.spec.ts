import { idempotencyKeyHash, openBody, sealBody } from './sealed-response';

describe('sealed idempotent responses', () => {
  const body = { id: 4, key: 'sb_live_0123456789abcdefghijABCDEFGHIJ0123456789' };

  it('round-trips a body, and the stored form shows neither the body nor the key', () => {
    const sealed = sealBody(body, 'account:1', 'idem-1');
    expect(openBody(sealed, 'account:1', 'idem-1')).toEqual(body);
    const stored = JSON.stringify(sealed) + idempotencyKeyHash('account:1', 'idem-1');
    expect(stored).not.toContain(body.key);
    expect(stored).not.toContain('idem-1');
    expect(openBody(sealBody(undefined, 'account:1', 'k'), 'account:1', 'k')).toBeNull();
  });

  it('does not open under another key or scope, or when altered', () => {
    const sealed = sealBody(body, 'account:1', 'idem-1');
    expect(() => openBody(sealed, 'account:1', 'idem-2')).toThrow();
    expect(() => openBody(sealed, 'account:2', 'idem-1')).toThrow();
    const data = Buffer.from(sealed.data, 'base64');
    data[0] ^= 1;
    expect(() => openBody({ ...sealed, data: data.toString('base64') }, 'account:1', 'idem-1')).toThrow();
  });

  it('hashes the key per scope, differently from the sealing key', () => {
    expect(idempotencyKeyHash('account:1', 'k')).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKeyHash('account:1', 'k')).toBe(idempotencyKeyHash('account:1', 'k'));
    expect(idempotencyKeyHash('account:1', 'k')).not.toBe(idempotencyKeyHash('account:2', 'k'));
  });

  it('uses a fresh IV every time', () => {
    expect(sealBody(body, 's', 'k').iv).not.toBe(sealBody(body, 's', 'k').iv);
  });
});
