import { types } from 'pg';

const TIMESTAMPTZ = 1184;
let installed = false;

/**
 * pg reads every `timestamptz` with postgres-date, three regular expressions a value: on a list
 * of 20 items with three timestamps each, 2–4 % of the server's CPU in profiles
 * (docs/performance.md). This puts a parser of the one form PostgreSQL sends with its default
 * DateStyle (ISO) in front of it, for the whole process; any other form (BC, infinity, years
 * before 1000, an offset with seconds, another DateStyle) goes to postgres-date as before.
 */
export function installTimestampParser(): void {
  if (installed) return;
  installed = true;
  const original = types.getTypeParser(TIMESTAMPTZ, 'text') as (value: string) => unknown;
  types.setTypeParser(TIMESTAMPTZ, (value: string) => parseTimestamptz(value) ?? original(value));
}

/**
 * `YYYY-MM-DD HH:MM:SS[.fraction]±HH[:MM]` (years 1000–9999) as postgres-date reads it — the
 * same `Date.UTC` call with the same arguments, less the offset — or null for any other text.
 */
export function parseTimestamptz(s: string): Date | null {
  const n = s.length;
  if (n < 22 || s[4] !== '-' || s[7] !== '-' || s[10] !== ' ' || s[13] !== ':' || s[16] !== ':') return null;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return null;
  let at = 19;
  let ms = 0;
  if (s[at] === '.') {
    let end = at + 1;
    while (end < n && isDigit(s.charCodeAt(end))) end++;
    if (end === at + 1) return null;
    ms = 1000 * parseFloat(s.slice(at, end));
    at = end;
  }
  const sign = s[at];
  if (sign !== '+' && sign !== '-') return null;
  const offsetHours = digits(s, at + 1, 2);
  let offsetMinutes = 0;
  let end = at + 3;
  if (end < n) {
    if (s[end] !== ':') return null;
    offsetMinutes = digits(s, end + 1, 2);
    end += 3;
  }
  if (end !== n || offsetHours < 0 || offsetMinutes < 0) return null;
  const offset = (offsetHours * 3600 + offsetMinutes * 60) * 1000 * (sign === '-' ? -1 : 1);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The number written by `length` digits at `from`, or -1. */
function digits(s: string, from: number, length: number): number {
  let value = 0;
  for (let i = from; i < from + length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    value = value * 10 + (c - 48);
  }
  return value;
}
