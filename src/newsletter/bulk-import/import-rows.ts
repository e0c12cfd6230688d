import { isEmail } from 'class-validator';
import type { StagedRow } from './import.repository';

/** Where a CSV column goes: the address, the name, an attribute, or nowhere. */
export type ColumnTarget = { kind: 'email' } | { kind: 'name' } | { kind: 'attribute'; key: string } | { kind: 'skip' };

const EMAIL_HEADERS = new Set(['email', 'e-mail', 'email address', 'e-mail address', 'mail']);
const NAME_HEADERS = new Set(['name', 'full name', 'fullname']);
const ATTRIBUTES_MAX_BYTES = 4096;
const NAME_MAX = 200;

/**
 * Where each header goes: `columns` (header -> `email`, `name`, `attributes.<key>` or `-`) first,
 * then the usual names; any other header is an attribute of its own name. Null with the reason
 * when the mapping cannot work.
 */
export function mapHeader(
  header: string[],
  columns: Record<string, string>,
): { targets: ColumnTarget[] } | { error: string } {
  const targets = header.map((raw): ColumnTarget => {
    const h = raw.trim();
    const mapped = columns[h];
    if (mapped !== undefined) {
      if (mapped === 'email') return { kind: 'email' };
      if (mapped === 'name') return { kind: 'name' };
      if (mapped === '-') return { kind: 'skip' };
      return { kind: 'attribute', key: mapped.slice('attributes.'.length) };
    }
    const lower = h.toLowerCase();
    if (EMAIL_HEADERS.has(lower)) return { kind: 'email' };
    if (NAME_HEADERS.has(lower)) return { kind: 'name' };
    return h === '' ? { kind: 'skip' } : { kind: 'attribute', key: h };
  });
  const emails = targets.filter((t) => t.kind === 'email').length;
  if (emails !== 1)
    return { error: emails === 0 ? 'no column holds the email address' : 'several columns hold the email address' };
  if (targets.filter((t) => t.kind === 'name').length > 1) return { error: 'several columns hold the name' };
  return { targets };
}

/** Checks a `columns` mapping's values; null when valid. */
export function columnsError(columns: unknown): string | null {
  if (columns === null || typeof columns !== 'object' || Array.isArray(columns)) return 'must be a JSON object';
  for (const [header, target] of Object.entries(columns as Record<string, unknown>)) {
    if (typeof target !== 'string' || !/^(email|name|-|attributes\.[A-Za-z0-9_.-]{1,64})$/.test(target))
      return `"${header.slice(0, 50)}" must map to email, name, attributes.<key> or -`;
  }
  return null;
}

/** A row's address, normalised, or why it is not one. */
function address(value: unknown): { email: string } | { reason: string } {
  if (typeof value !== 'string' || value.trim() === '') return { reason: 'email: is required' };
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !isEmail(email, { allow_display_name: false, allow_utf8_local_part: true }))
    return { reason: 'email: must be an email address' };
  return { email };
}

function finish(
  rowNo: number,
  emailValue: unknown,
  name: unknown,
  attributes: Record<string, unknown> | null,
): StagedRow | { reason: string } {
  const a = address(emailValue);
  if ('reason' in a) return a;
  if (
    name !== null &&
    name !== undefined &&
    (typeof name !== 'string' || name.length > NAME_MAX || /[\r\n]/.test(name))
  )
    return { reason: `name: must be one line of at most ${NAME_MAX} characters` };
  const json = attributes ? JSON.stringify(attributes) : '{}';
  if (Buffer.byteLength(json) > ATTRIBUTES_MAX_BYTES)
    return { reason: `attributes: must be at most ${ATTRIBUTES_MAX_BYTES} bytes` };
  return { rowNo, email: a.email, name: typeof name === 'string' ? name.trim() : '', attributes: json };
}

/** One CSV record (after the header) as a staged row, or why it is refused. */
export function csvRow(rowNo: number, record: string[], targets: ColumnTarget[]): StagedRow | { reason: string } {
  let email: string | undefined;
  let name: string | null = null;
  let attributes: Record<string, unknown> | null = null;
  targets.forEach((t, i) => {
    const value = record[i] ?? '';
    if (t.kind === 'email') email = value;
    else if (t.kind === 'name') name = value;
    else if (t.kind === 'attribute' && value !== '') (attributes ??= {})[t.key] = value;
  });
  return finish(rowNo, email, name, attributes);
}

/** One item of a JSON import (`{ email, name?, attributes? }`) as a staged row, or why it is refused. */
export function jsonRow(rowNo: number, item: unknown): StagedRow | { reason: string } {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return { reason: 'must be an object' };
  const { email, name, attributes, ...rest } = item as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return { reason: `${extra.slice(0, 50)}: is not allowed` };
  if (attributes !== undefined && (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes)))
    return { reason: 'attributes: must be an object' };
  return finish(rowNo, email, name ?? null, (attributes as Record<string, unknown> | undefined) ?? null);
}
