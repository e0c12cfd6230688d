/**
 * The stand-in's objects, kept per key mode (a test-mode id is not found with a live key, as
 * at Stripe), with Stripe's id shapes and its error answers.
 */
import { randomBytes } from 'node:crypto';

export type Mode = 'test' | 'live';
/** Stripe's objects are JSON of many shapes; the stand-in reads and writes their fields freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one alias for the untyped JSON of Stripe's fixtures
export type Json = any;
export type StripeObject = Record<string, Json> & { id: string; object: string };

export interface Answer {
  status: number;
  body: unknown;
}

/** A thrown Stripe error answer (`{ error: { type, code, param, message, … } }`). */
export class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: Record<string, unknown>,
  ) {
    super(String(error.message));
  }
  answer(): Answer {
    const code = this.error.code as string | undefined;
    const docUrl = code ? { doc_url: `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}` } : {};
    return { status: this.status, body: { error: { ...docUrl, ...this.error } } };
  }
}

export const invalidRequest = (message: string, code?: string, param?: string, status = 400) =>
  new StripeFailure(status, {
    type: 'invalid_request_error',
    message,
    ...(code ? { code } : {}),
    ...(param ? { param } : {}),
  });

export const noSuch = (kind: string, id: string, param?: string) =>
  invalidRequest(`No such ${kind}: '${id}'`, 'resource_missing', param ?? 'id', param ? 400 : 404);

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export function randomToken(length: number): string {
  return [...randomBytes(length)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
}
/** `prod_…`, `pi_…`; checkout sessions say their mode as Stripe's do (`cs_test_…`). */
export const newId = (prefix: string) => `${prefix}_${randomToken(24)}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

export class ObjectStore {
  private readonly byMode: Record<Mode, Map<string, StripeObject>> = { test: new Map(), live: new Map() };

  get(mode: Mode, id: string, object?: string): StripeObject | undefined {
    const found = this.byMode[mode].get(id);
    return found && (!object || found.object === object) ? found : undefined;
  }

  /** Like get, or the 404 (or 400 naming `param`) Stripe answers for an id it does not know. */
  need(mode: Mode, id: string, object: string, param?: string): StripeObject {
    const found = this.get(mode, id, object);
    if (!found) throw noSuch(object.replace('.', ' '), id, param);
    return found;
  }

  put(mode: Mode, obj: StripeObject): StripeObject {
    this.byMode[mode].set(obj.id, obj);
    return obj;
  }

  /** Finds an id in either mode (the stand-in's own helpers, not the API). */
  find(id: string): { mode: Mode; obj: StripeObject } | undefined {
    for (const mode of ['test', 'live'] as const) {
      const obj = this.byMode[mode].get(id);
      if (obj) return { mode, obj };
    }
    return undefined;
  }

  all(object?: string): StripeObject[] {
    return [...this.byMode.test.values(), ...this.byMode.live.values()].filter((o) => !object || o.object === object);
  }

  list(mode: Mode, object: string): StripeObject[] {
    return [...this.byMode[mode].values()].filter((o) => o.object === object);
  }

  clear(): void {
    this.byMode.test.clear();
    this.byMode.live.clear();
  }
}

/** Stripe's metadata rules: `metadata=""` clears it, `metadata[k]=""` removes one key, others merge. */
export function mergeMetadata(current: Record<string, string> | undefined, next: unknown): Record<string, string> {
  if (next === undefined) return current ?? {};
  if (next === '') return {};
  const out = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(next as Record<string, string>)) {
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Copies the listed request fields that were sent; Stripe's `""` unsets a field (null). */
export function applyFields(target: StripeObject, params: Record<string, unknown>, fields: string[]): void {
  for (const f of fields) {
    if (!(f in params)) continue;
    target[f] = params[f] === '' ? null : params[f];
  }
  if ('metadata' in params) target.metadata = mergeMetadata(target.metadata, params.metadata);
}
