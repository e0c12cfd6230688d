import type { SiteContext } from '../tenancy/site-context';

export interface KeyPrincipal {
  kind: 'key';
  keyId: number;
  accountId: number;
  /** null: every site of the account. */
  siteIds: number[] | null;
  /** What the key may do (permissions.ts); null: everything. */
  permissions: readonly string[] | null;
  /** API.md §8: while a deletion is scheduled the account may only read and cancel. */
  accountDeletionScheduled: boolean;
  /**
   * Which of the key's secrets was presented: its current one, or the one a roll replaced (while
   * its grace lasts), which may not manage keys or the account (permissions.ts, CURRENT_SECRET_GROUPS).
   */
  secret: 'current' | 'previous';
  /**
   * When the presented secret stops working, in ms since the epoch: the key's expiry, or a
   * replaced secret's end of grace if sooner; null: never. A key it creates or rolls may not outlive it.
   */
  expiresAt: number | null;
}

/**
 * A publishable key (`sb_pub_…`): meant to sit in a browser or an app, so anyone may hold it. It
 * counts only on the routes @Route marks publishable (the public ones and published reads), sees
 * what anonymous callers see, and is limited per key and per address (docs/foundation.md).
 */
export interface PublishableKeyPrincipal {
  kind: 'publishable';
  keyId: number;
  accountId: number;
  /** null: every site of the account. */
  siteIds: number[] | null;
  /** The browser origins it may be used from (`Origin`); null: any. */
  allowedOrigins: readonly string[] | null;
  /** Requests a minute across every caller of the key. */
  rateLimitPerMinute: number;
}

export interface UserPrincipal {
  kind: 'user';
  accountId: number;
  siteId: number;
  userId: number;
  sessionId: number;
  /** API.md §8: while the user's erasure is scheduled they may only read and cancel it. */
  deletionScheduled?: boolean;
}

export interface AnonymousPrincipal {
  kind: 'anonymous';
}

export type Principal = KeyPrincipal | PublishableKeyPrincipal | UserPrincipal | AnonymousPrincipal;

/**
 * Whether a caller sees unpublished work (drafts, scheduled items): only a secret key of the
 * site does; anyone else, a site user included, sees what is published.
 */
export function canSeeDrafts(principal: Principal): boolean {
  return principal.kind === 'key';
}

export const ANONYMOUS: AnonymousPrincipal = Object.freeze({ kind: 'anonymous' });

/** What the auth layer attaches to the Express request. */
export interface AuthenticatedRequest {
  principal?: Principal;
  site?: SiteContext;
}

/** Verifies an API key, secret or publishable; implemented by the api-keys module. */
export abstract class ApiKeyVerifier {
  abstract verify(plaintext: string): Promise<KeyPrincipal | PublishableKeyPrincipal | null>;
}

/** Looks sites up for the guard; implemented by the account module. */
export abstract class SiteDirectory {
  abstract findByName(name: string): Promise<SiteContext | null>;
  abstract findById(id: number): Promise<SiteContext | null>;
  /** A site by name when it is at hand in memory (no I/O), else null: the guard's fast path. */
  peekByName(_name: string): SiteContext | null {
    return null;
  }
}

export type SessionVerifier = (token: string) => Promise<UserPrincipal | null>;

export const API_KEY_PATTERN = /^sb_(live|test|pub)_[A-Za-z0-9]{32,}$/;
export const SITE_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
