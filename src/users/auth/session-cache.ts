import type { UserPrincipal } from '../../common/auth/principal';
import type { SiteUserEntity } from '../entities/site-user.entity';

/** A verified session: who it is, and the user as of the read (what GET /me answers). */
export interface VerifiedSession {
  principal: UserPrincipal;
  user: SiteUserEntity;
}

interface Entry {
  session: VerifiedSession | null;
  until: number;
}

const MAX_ENTRIES = 50_000;

/**
 * Verified sessions (and unknown tokens) by token hash, so a signed-in request does not wait for
 * a session lookup (docs/users.md). An entry lives between half the TTL and the TTL (chosen at
 * random), never past the session's own expiry. Cleared by `reset()` whenever a trigger announces a change
 * to sessions or users (ChangeNotifications `sitebase_sessions`), and bypassed while those
 * notifications are down; a read that raced a change is not stored (the generation moved on).
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** The same verified sessions by session id, for the user of a request already verified. */
  private readonly bySession = new Map<number, VerifiedSession>();
  private gen = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly live: () => boolean,
    private readonly random: () => number = Math.random,
  ) {}

  get generation(): number {
    return this.gen;
  }

  get(hash: string, now = Date.now()): Entry | undefined {
    if (this.ttlMs === 0 || !this.live()) return undefined;
    const entry = this.entries.get(hash);
    if (entry && entry.until <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  /** `expiresAt`: the session's own expiry, which ends the entry early. */
  set(hash: string, gen: number, session: VerifiedSession | null, expiresAt: number | null, now = Date.now()): void {
    if (this.ttlMs === 0 || gen !== this.gen || !this.live()) return;
    if (this.entries.size >= MAX_ENTRIES) {
      this.entries.clear();
      this.bySession.clear();
    }
    // Between half the TTL and the TTL: sessions first verified together (a burst of sign-ins,
    // a restart) are verified again spread over time, not all in the same second.
    const ttl = this.ttlMs * (0.5 + 0.5 * this.random());
    this.entries.set(hash, { session, until: Math.min(now + ttl, expiresAt ?? Infinity) });
    if (session) this.bySession.set(session.principal.sessionId, session);
  }

  /** A session verified by this cache (the request's own, just verified), or undefined. */
  session(sessionId: number): VerifiedSession | undefined {
    if (this.ttlMs === 0 || !this.live()) return undefined;
    return this.bySession.get(sessionId);
  }

  reset(): void {
    this.gen++;
    this.entries.clear();
    this.bySession.clear();
  }
}
