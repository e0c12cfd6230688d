/**
 * Every other spelling of a base64url value that Node decodes to the same bytes
 * (`Buffer.from(x, 'base64url')`): the last character's unused low bits, `=` padding, the
 * standard alphabet's `+` and `/`, and characters outside the alphabet, which the decoder skips.
 * A decoder that compares decoded bytes accepts all of them; one that compares the canonical
 * text accepts none (docs/security.md, "Signed tokens: one spelling").
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export function alternateSpellings(canonical: string): string[] {
  const bytes = Buffer.from(canonical, 'base64url');
  const candidates = new Set<string>();
  const head = canonical.slice(0, -1);
  for (const c of ALPHABET) candidates.add(head + c);
  for (const pad of ['=', '==']) candidates.add(canonical + pad);
  candidates.add(canonical.replace(/-/g, '+').replace(/_/g, '/'));
  for (const c of [' ', '!', '\n', '*']) {
    candidates.add(c + canonical);
    candidates.add(canonical.slice(0, 5) + c + canonical.slice(5));
  }
  candidates.delete(canonical);
  return [...candidates].filter((s) => Buffer.from(s, 'base64url').equals(bytes));
}

/** The text of a dotted token with its last part (the signature) spelled `sig`. */
export function withSignature(token: string, sig: string): string {
  return `${token.slice(0, token.lastIndexOf('.') + 1)}${sig}`;
}

export function signatureOf(token: string): string {
  return token.slice(token.lastIndexOf('.') + 1);
}
