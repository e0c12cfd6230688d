import { defineEvents, event } from '../common/outbox/events';
import {
  envelope,
  eventTypeProblem,
  headersProblem,
  MASKED_HEADER_VALUE,
  maskHeaders,
  mergeHeaders,
  signingSecrets,
  subscribes,
  urlProblem,
} from './webhook-rules';

defineEvents('rulespec', {
  one: event<{ id: number }>('rulespec.one', 'One'),
  two: event<{ id: number }>('rulespec.two', 'Two'),
});

describe('webhook rules', () => {
  it('matches subscriptions: a name, a prefix, or everything', () => {
    expect(subscribes(['rulespec.one'], 'rulespec.one')).toBe(true);
    expect(subscribes(['rulespec.one'], 'rulespec.two')).toBe(false);
    expect(subscribes(['rulespec.*'], 'rulespec.two')).toBe(true);
    expect(subscribes(['content.*'], 'rulespec.two')).toBe(false);
    expect(subscribes(['*'], 'anything.at_all')).toBe(true);
  });

  it('checks event types against the catalogue', () => {
    expect(eventTypeProblem('rulespec.one')).toBeNull();
    expect(eventTypeProblem('rulespec.*')).toBeNull();
    expect(eventTypeProblem('*')).toBeNull();
    expect(eventTypeProblem('rulespec.three')).toBe('rulespec.three is not an event type');
    expect(eventTypeProblem('nope.*')).toBe('nope.* matches no event type');
    expect(eventTypeProblem(7)).toMatch(/must be an event type/);
  });

  it('masks every header value and keeps a stored value where the mask is sent back (by name, any case)', () => {
    expect(maskHeaders({ Authorization: 'Bearer x', 'X-Team': 'web' })).toEqual({
      Authorization: MASKED_HEADER_VALUE,
      'X-Team': MASKED_HEADER_VALUE,
    });
    const stored = { Authorization: 'Bearer x', 'X-Team': 'web' };
    expect(mergeHeaders(stored, { authorization: MASKED_HEADER_VALUE, 'X-New': 'n' })).toEqual({
      headers: { authorization: 'Bearer x', 'X-New': 'n' },
    });
    expect(mergeHeaders(stored, {})).toEqual({ headers: {} });
    expect(mergeHeaders(stored, { 'X-Other': MASKED_HEADER_VALUE })).toEqual({
      error: { path: 'headers.X-Other', message: `is the masked placeholder ${MASKED_HEADER_VALUE}; send the value` },
    });
  });

  it('allows ordinary headers and refuses those the server owns', () => {
    expect(headersProblem({ Authorization: 'Bearer x', 'X-Team': 'web' })).toBeNull();
    expect(headersProblem({ 'Transfer-Encoding': 'chunked' })).toMatch(/cannot be set/);
    expect(headersProblem({ 'Webhook-Id': 'msg_1' })).toMatch(/cannot be set/);
    expect(headersProblem({ 'x-a': '1', 'X-A': '2' })).toMatch(/given twice/);
    expect(headersProblem({ 'X-A': 'é' })).toMatch(/printable ASCII/);
    expect(headersProblem([])).toMatch(/must be an object/);
  });

  it('checks URLs before any lookup', () => {
    expect(urlProblem('https://hooks.example.com/x?y=1', false)).toBeNull();
    expect(urlProblem('http://hooks.example.com/x', false)).toMatch(/https/);
    expect(urlProblem('http://hooks.example.com/x', true)).toBeNull();
    expect(urlProblem('https://a:b@hooks.example.com/', false)).toMatch(/credentials/);
    expect(urlProblem('file:///etc/passwd', true)).toMatch(/https/);
    expect(urlProblem('https://hooks.example.com/#x', false)).toMatch(/fragment/);
  });

  it('writes the envelope and picks the signing secrets', () => {
    expect(envelope('rulespec.one', new Date('2026-01-01T00:00:00Z'), { id: 1 })).toBe(
      '{"type":"rulespec.one","timestamp":"2026-01-01T00:00:00.000Z","data":{"id":1}}',
    );
    const now = new Date();
    const later = new Date(now.getTime() + 1000);
    expect(signingSecrets({ secret: 'a', previousSecret: 'b', previousSecretExpiresAt: later }, now)).toEqual([
      'a',
      'b',
    ]);
    expect(signingSecrets({ secret: 'a', previousSecret: 'b', previousSecretExpiresAt: now }, now)).toEqual(['a']);
    expect(signingSecrets({ secret: 'a', previousSecret: null, previousSecretExpiresAt: null }, now)).toEqual(['a']);
  });
});
