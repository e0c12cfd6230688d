/** An ISO 8601 UTC timestamp as every response writes it (`toISOString()`). */
export const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** For fields written off the request path (a key's last use): null or an ISO timestamp. */
export const NULL_OR_ISO = {
  asymmetricMatch: (v: unknown) =>
    v === null || (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v)),
  toAsymmetricMatcher: () => 'null or an ISO timestamp',
};
