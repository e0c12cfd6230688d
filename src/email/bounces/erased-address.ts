import { createHash } from 'node:crypto';

/**
 * What a suppression keeps of an erased person's address (docs/deliverability.md, "Erasure"):
 * `sha256:` and the hex SHA-256 of the lower-cased address. The entry still stops mail to them;
 * the address itself is gone. The SQL of the erasure computes the same (email.repository.ts).
 */
export function erasedForm(email: string): string {
  return `sha256:${createHash('sha256').update(email.toLowerCase(), 'utf8').digest('hex')}`;
}

/** SQL for the same, over a text expression. */
export const ERASED_FORM_SQL = (expr: string) => `'sha256:' || encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;
