import { eventCatalog } from '../common/outbox/events';

/** Headers one endpoint may add. */
export const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 1000;
/** RFC 9110 token. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
/**
 * Names an endpoint may not set: hop-by-hop headers (RFC 9110 §7.6.1), what frames the request
 * (Host, Content-*, Transfer-Encoding, Expect), the sender's identity, and the Standard
 * Webhooks headers, which carry the signature a receiver trusts.
 */
const REFUSED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
  'user-agent',
  'forwarded',
]);
const REFUSED_PREFIXES = ['content-', 'webhook-', 'x-forwarded-', 'sec-'];

/** Why a headers object is refused, or null. */
export function headersProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'must be an object of header names and values';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) return `must have at most ${MAX_HEADERS} headers`;
  const seen = new Set<string>();
  for (const [name, v] of entries) {
    if (!HEADER_NAME.test(name)) return `${JSON.stringify(name.slice(0, 100))} is not a header name`;
    const lower = name.toLowerCase();
    if (REFUSED.has(lower) || REFUSED_PREFIXES.some((p) => lower.startsWith(p)))
      return `${name} cannot be set: the server sets it, or it is hop-by-hop`;
    if (seen.has(lower)) return `${name} is given twice`;
    seen.add(lower);
    if (typeof v !== 'string') return `${name} must be a string`;
    if (v.length > MAX_HEADER_VALUE) return `${name} must be at most ${MAX_HEADER_VALUE} characters`;
    // Visible ASCII, space and tab: no line break can start another header.
    if (!/^[\t\x20-\x7e]*$/.test(v)) return `${name} must be printable ASCII on one line`;
  }
  return null;
}

/**
 * Custom header values are write-only (docs/webhooks.md, "Custom headers"): any of them may be a
 * credential (`Authorization: Bearer …`), so every answer shows each header's name with this in
 * place of its value.
 */
export const MASKED_HEADER_VALUE = '********';

export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, MASKED_HEADER_VALUE]));
}

/**
 * The headers a PATCH stores: `given` replaces them all, but a value sent back as the mask keeps
 * the stored value of that name (compared without case), so a client can round-trip a GET.
 * The error of a masked value that names no stored header, or null.
 */
export function mergeHeaders(
  stored: Record<string, string>,
  given: Record<string, string>,
): { headers: Record<string, string> } | { error: { path: string; message: string } } {
  const byLower = new Map(Object.entries(stored).map(([name, value]) => [name.toLowerCase(), value]));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== MASKED_HEADER_VALUE) {
      headers[name] = value;
      continue;
    }
    const kept = byLower.get(name.toLowerCase());
    if (kept === undefined)
      return {
        error: { path: `headers.${name}`, message: `is the masked placeholder ${MASKED_HEADER_VALUE}; send the value` },
      };
    headers[name] = kept;
  }
  return { headers };
}

/** Why one entry of `eventTypes` is refused, or null: an event of the catalogue, `prefix.*` of some, or `*`. */
export function eventTypeProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 100)
    return 'each value must be an event type (docs/events.md)';
  if (value === '*') return null;
  const names = [...eventCatalog().keys()];
  if (value.endsWith('.*')) {
    const prefix = value.slice(0, -1);
    return names.some((n) => n.startsWith(prefix)) ? null : `${value} matches no event type`;
  }
  return eventCatalog().has(value) ? null : `${value} is not an event type`;
}

/** Every value `eventTypeProblem` takes: `*`, each `<prefix>.*` of the catalogue and each event type. */
export function eventTypeChoices(): string[] {
  const names = [...eventCatalog().keys()].sort();
  const prefixes = new Set<string>();
  for (const name of names)
    for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1))
      prefixes.add(`${name.slice(0, dot)}.*`);
  return ['*', ...[...prefixes].sort(), ...names];
}

/** Whether an endpoint subscribed to `eventTypes` receives `name`. */
export function subscribes(eventTypes: string[], name: string): boolean {
  for (const t of eventTypes) {
    if (t === '*' || t === name) return true;
    if (t.endsWith('.*') && name.startsWith(t.slice(0, -1))) return true;
  }
  return false;
}

/**
 * Why an endpoint URL is refused before its host is looked up, or null: an absolute http(s)
 * URL (http only when allowed), without credentials or a fragment.
 */
export function urlProblem(text: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.protocol === 'http:' && !allowHttp) return 'must be an https:// URL (http:// is not allowed on this server)';
  if (url.username || url.password) return 'must not contain credentials; use headers (Authorization) instead';
  if (url.hash) return 'must not contain a fragment';
  if (!url.hostname) return 'must name a host';
  return null;
}

/** The body of every webhook: `{ type, timestamp, data }` (docs/webhooks.md). */
export function envelope(type: string, timestamp: Date, data: object): string {
  return JSON.stringify({ type, timestamp: timestamp.toISOString(), data });
}

/** The secrets that sign now: the current one, and the previous one during its grace period. */
export function signingSecrets(
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  return endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}
