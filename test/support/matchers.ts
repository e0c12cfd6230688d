/** An ISO 8601 UTC timestamp as every response writes it (`toISOString()`). */
export const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** For fields written off the request path (a key's last use): null or an ISO timestamp. */
export const NULL_OR_ISO = {
  asymmetricMatch: (v: unknown) =>
    v === null || (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v)),
  toAsymmetricMatcher: () => 'null or an ISO timestamp',
};

/**
 * Runs `assertion`; when it fails, the failure starts with `fix` (how to fix what it found)
 * above jest's own message and diff, which a long diff would otherwise fold out of sight.
 */
export function expectOrFix(fix: string, assertion: () => void): void {
  try {
    assertion();
  } catch (error) {
    throw new Error(`${fix}\n\n${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
