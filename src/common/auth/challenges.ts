/**
 * The `WWW-Authenticate` challenges of a 401 (RFC 9110 §11.6.1: every 401 carries one), one per
 * way a credential travels: a key in `x-api-key` (`ApiKey`, a scheme of our own name, as the
 * header is), and a key or a site user's session in `Authorization: Bearer`. The problem filter
 * sets `any` on a 401 that says nothing narrower (problem-details.filter.ts).
 */
const API_KEY = 'ApiKey realm="sitebase"';
const BEARER = 'Bearer realm="sitebase"';

export const CHALLENGES = {
  /** A key route: a key goes in `x-api-key` or as a bearer token. */
  any: `${API_KEY}, ${BEARER}`,
  /** v1: `x-api-key` only. */
  apiKey: API_KEY,
  /** A site user's session (a session-only route, a session that failed). */
  session: BEARER,
} as const;

export type Challenge = keyof typeof CHALLENGES;
