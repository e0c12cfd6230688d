import bytes from 'bytes';
import { isIP, isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * How one kind of setting is read: `parse` returns the value a text stands for, or undefined for
 * any text it does not read (never a guess: `10abc` is not 10, `huge` is not "no limit");
 * `accepts` is what the one-line start-up error says it takes. The text given is trimmed and
 * never empty (an empty variable is an unset one: the default applies).
 */
export interface SettingKind<T> {
  parse(text: string): T | undefined;
  accepts: string;
  /** The value is never printed, not even a wrong one. */
  secret?: boolean;
}

/** The same kind, its value never printed. */
export function secret<T>(kind: SettingKind<T>): SettingKind<T> {
  return { ...kind, secret: true };
}

/** Counts per window (requests, mails): far past any real need, and within PostgreSQL's integer. */
export const COUNT_MAX = 1_000_000_000;
export const DAY_SECONDS = 86_400;
export const YEAR_SECONDS = 365 * DAY_SECONDS;

/** Digits only, at most 15 (below 2^53): no sign but `-`, no `1.5`, `1e3`, `0x10`, `10abc`. */
const WHOLE = /^-?\d{1,15}$/;

/** A whole number from `min` to `max` (decimal digits). */
export function int(min: number, max: number): SettingKind<number> {
  return {
    accepts: `use a whole number from ${min} to ${max}`,
    // `+ 0`: "-0" is 0.
    parse: (t) => (WHOLE.test(t) && Number(t) >= min && Number(t) <= max ? Number(t) + 0 : undefined),
  };
}

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];
/** A switch: a typo must not switch a feature off. */
export function bool(): SettingKind<boolean> {
  return {
    accepts: 'use true or false (also 1/0, yes/no, on/off)',
    parse: (t) =>
      TRUE_WORDS.includes(t.toLowerCase()) ? true : FALSE_WORDS.includes(t.toLowerCase()) ? false : undefined,
  };
}

/** One of `values`, exactly. */
export function oneOf<const V extends string>(values: readonly V[]): SettingKind<V> {
  return { accepts: `use one of ${values.join(', ')}`, parse: (t) => values.find((v) => v === t) };
}

/** A number of bytes (`1048576`) or one with a unit (`512kb`, `1mb`, `1.5gb`), as `bytes` reads them. */
const SIZE = /^(?:\d{1,15}|\d{1,9}(?:\.\d{1,6})? ?[kmgt]b)$/i;
/**
 * A size in bytes from `min` to `max` (each written as it is shown, e.g. '1kb', '100mb'): the
 * units of the `bytes` package, which body-parser uses (1kb = 1024).
 */
export function size(min: string, max: string): SettingKind<number> {
  const [low, high] = [bytes.parse(min), bytes.parse(max)];
  if (low === null || high === null) throw new Error(`size(${min}, ${max}): not sizes`);
  return {
    accepts: `use a size from ${min} to ${max}: a number of bytes, or one with kb, mb or gb (e.g. 512kb, 1mb)`,
    parse: (t) => {
      const n = SIZE.test(t) ? bytes.parse(t) : null;
      return n !== null && n >= low && n <= high ? n : undefined;
    },
  };
}

/** Text of a given shape; `check`, when given, must also pass (a key that must load, ...). */
export function shaped(
  shape: RegExp,
  accepts: string,
  check: (text: string) => boolean = () => true,
): SettingKind<string> {
  return { accepts, parse: (t) => (shape.test(t) && check(t) ? t : undefined) };
}

/** Printable characters without spaces: keys, tokens and other secrets' shapes. */
export function token(minLength: number, what: string): SettingKind<string> {
  return shaped(
    /^[\x21-\x7e]+$/,
    `use ${what}: ${minLength} or more printable characters without spaces`,
    (t) => t.length >= minLength && t.length <= 4096,
  );
}

/**
 * A comma-separated list of `item`s (spaces around the commas are fine; an empty item is not),
 * at most `maxItems`; `none` for an empty list when `noneWord` is set.
 */
export function listOf<T>(
  item: SettingKind<T>,
  options: { maxItems: number; accepts: string; noneWord?: boolean },
): SettingKind<T[]> {
  return {
    accepts: options.accepts,
    parse: (t) => {
      if (options.noneWord && t === 'none') return [];
      const texts = t.split(',').map((s) => s.trim());
      if (texts.length > options.maxItems) return undefined;
      const items = texts.map((s) => (s === '' ? undefined : item.parse(s)));
      return items.every((v): v is T => v !== undefined) ? items : undefined;
    },
  };
}

/** Whole numbers from `min` to `max`, comma-separated, or `none`. */
export function intList(min: number, max: number, maxItems: number): SettingKind<number[]> {
  return listOf(int(min, max), {
    maxItems,
    noneWord: true,
    accepts: `use at most ${maxItems} whole numbers from ${min} to ${max}, separated by commas (or none)`,
  });
}

/** A folder: any path, without control characters (a pasted line break, a tab). */
export function folder(): SettingKind<string> {
  return {
    accepts: 'use a folder path (without control characters)',
    // eslint-disable-next-line no-control-regex
    parse: (t) => (/[\x00-\x1f\x7f]/.test(t) ? undefined : t),
  };
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
/** A DNS name (`localhost`, `db.internal`), split into labels: no regex over the whole name. */
export function isHostName(text: string): boolean {
  return text.length <= 253 && text.split('.').every((label) => LABEL.test(label));
}

/** An address to listen on: an IPv4 or IPv6 address, or a host name. */
export function listenHost(): SettingKind<string> {
  return {
    accepts: 'use an IP address (0.0.0.0 for all, 127.0.0.1, ::) or a host name',
    parse: (t) => (isIP(t) !== 0 || isHostName(t) ? t : undefined),
  };
}

/**
 * An absolute URL of one of `protocols` with a host, as WHATWG URL reads it (pg and nodemailer
 * read the same text); the text itself is the value. `bare`: no credentials, query or fragment
 * (an origin with an optional path).
 */
export function url(options: { protocols: string[]; bare: boolean; accepts: string }): SettingKind<string> {
  return {
    accepts: options.accepts,
    parse: (t) => {
      if (/\s/.test(t) || !URL.canParse(t)) return undefined;
      const u = new URL(t);
      if (!options.protocols.includes(u.protocol)) return undefined;
      if (u.hostname === '' && !u.searchParams.has('host')) return undefined;
      if (options.bare && (u.username || u.password || u.search || u.hash || t.includes('?') || t.includes('#')))
        return undefined;
      return t;
    },
  };
}

/** An http(s) origin with an optional path, no credentials, query or fragment. */
export function webUrl(example: string): SettingKind<string> {
  return url({ protocols: ['http:', 'https:'], bare: true, accepts: `use an http(s) URL such as ${example}` });
}

/** The names Express (proxy-addr) gives to ranges of addresses. */
const TRUST_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
/** What Express takes as `trust proxy`. */
export type TrustProxy = boolean | number | string[];

/**
 * An address or subnet as proxy-addr reads it, stricter: dotted IPv4 or IPv6 (proxy-addr would
 * also take `10.1` or `0x7f.1` as addresses), with an optional prefix (`/24`, 1 to 32 or 128) or
 * an IPv4 netmask (`/255.255.255.0`).
 */
function isTrustedRange(text: string): boolean {
  const slash = text.lastIndexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return false;
  if (slash < 0) return true;
  const range = text.slice(slash + 1);
  const max = family === 4 ? 32 : 128;
  if (/^\d{1,3}$/.test(range)) return Number(range) >= 1 && Number(range) <= max;
  if (family !== 4 || !isIPv4(range)) return false;
  const prefix = ipaddr.IPv4.parse(range).prefixLengthFromSubnetMask();
  return prefix !== null && prefix > 0;
}

/**
 * Express's `trust proxy`: true or false, a hop count, or addresses, subnets and the names
 * loopback, linklocal and uniquelocal, comma-separated. The value is what Express is handed.
 */
export function trustProxy(): SettingKind<TrustProxy> {
  const names = listOf<string>(
    { accepts: '', parse: (t) => (TRUST_NAMES.includes(t) || isTrustedRange(t) ? t : undefined) },
    { maxItems: 100, accepts: '' },
  );
  return {
    accepts:
      'use false, true, a hop count from 0 to 100, or addresses and subnets (10.0.0.5, 10.0.0.0/8, fd00::/8) and loopback, linklocal, uniquelocal, separated by commas',
    parse: (t) => {
      if (t === 'true' || t === 'false') return t === 'true';
      if (/^\d+$/.test(t)) return int(0, 100).parse(t);
      return names.parse(t);
    },
  };
}
