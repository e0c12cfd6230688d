import type { FieldError } from '../errors/problems';

/** Deepest nesting of objects and arrays a JSON body may have (the top-level object is 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * True when `text` nests objects or arrays deeper than `max`. Scans the raw text, so a hostile
 * body is refused before JSON.parse (slow on deep input) and before class-transformer and
 * class-validator (recursive: ~1,500 levels overflow the stack). Brackets inside strings do not
 * count; on malformed text the answer does not matter, JSON.parse refuses it next.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Keys refused anywhere in a body: `prototype` and every member of Object.prototype
 * (`__proto__`, `constructor`, `toString`, `hasOwnProperty`, ...). class-transformer drops them
 * silently (so the whitelist never sees them) or throws on them inside free-form objects, and
 * they are the keys of prototype-pollution gadgets.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
]);

/**
 * The paths (`a.0.__proto__`) of forbidden keys in a parsed body, at most `limit` of them.
 * Recursive: the depth was checked on the text first.
 */
export function forbiddenKeyErrors(value: unknown, limit = 50, path = '', out: FieldError[] = []): FieldError[] {
  if (value === null || typeof value !== 'object' || out.length >= limit) return out;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && out.length < limit; i++)
      forbiddenKeyErrors(value[i], limit, join(path, String(i)), out);
    return out;
  }
  for (const key of Object.keys(value)) {
    if (out.length >= limit) break;
    const at = join(path, key);
    if (FORBIDDEN_KEYS.has(key)) out.push({ path: at, message: 'is not allowed' });
    else forbiddenKeyErrors((value as Record<string, unknown>)[key], limit, at, out);
  }
  return out;
}

/**
 * NUL, or a UTF-16 surrogate without its pair (`"\ud800"` is valid JSON text). No text column
 * holds either as sent: PostgreSQL refuses NUL, the driver turns a lone surrogate into U+FFFD
 * (a silent change), and validators that encode URIs (isEmail, isURL) threw on it (a 500).
 */
// eslint-disable-next-line no-control-regex -- NUL is what it looks for
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The paths of strings (values, or keys) holding NUL or a lone surrogate in a parsed body, at
 * most `limit` of them. Recursive: the depth was checked on the text first.
 */
export function unstorableTextErrors(value: unknown, limit = 50, path = '', out: FieldError[] = []): FieldError[] {
  if (out.length >= limit) return out;
  if (typeof value === 'string') {
    if (UNSTORABLE_TEXT.test(value))
      out.push({ path, message: 'must not contain NUL or unpaired surrogate characters' });
    return out;
  }
  if (value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && out.length < limit; i++)
      unstorableTextErrors(value[i], limit, join(path, String(i)), out);
    return out;
  }
  for (const key of Object.keys(value)) {
    if (out.length >= limit) break;
    const at = join(path, key);
    if (UNSTORABLE_TEXT.test(key))
      out.push({ path: at, message: 'must not contain NUL or unpaired surrogate characters' });
    else unstorableTextErrors((value as Record<string, unknown>)[key], limit, at, out);
  }
  return out;
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}
