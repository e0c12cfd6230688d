import { createHmac } from 'node:crypto';
import { sameText } from '../../common/auth/same-text';

/**
 * Open and click tokens of campaign mail (docs/newsletter.md, "Tracking"), signed with the site's
 * newsletter secret (the one of link-tokens.ts; the kind letter is part of what is signed, so no
 * token serves as another kind), HMAC-SHA256 kept to 128 bits:
 * - open: `o.<campaignId>.<subscriptionId>.<sig>`;
 * - click: `k.<campaignId>.<subscriptionId>.<linkIndex>.<sig>`.
 * A forged or altered token is refused here, before any row is read.
 */
export interface TrackingToken {
  kind: 'open' | 'click';
  campaignId: number;
  subscriptionId: number;
  /** Click tokens only. */
  linkIndex?: number;
}

const SIG_BYTES = 16;
const ID = /^[1-9][0-9]{0,15}$/;
const INDEX = /^(0|[1-9][0-9]{0,4})$/;
const SIG = /^[A-Za-z0-9_-]{22}$/;

function sign(secret: Buffer, body: string): Buffer {
  return createHmac('sha256', secret).update(body).digest().subarray(0, SIG_BYTES);
}

export function encodeTrackingToken(secret: Buffer, t: TrackingToken): string {
  const body =
    t.kind === 'open'
      ? `o.${t.campaignId}.${t.subscriptionId}`
      : `k.${t.campaignId}.${t.subscriptionId}.${t.linkIndex ?? 0}`;
  return `${body}.${sign(secret, body).toString('base64url')}`;
}

/** The claims of a token of this kind when its shape and signature hold; null otherwise. */
export function decodeTrackingToken(secret: Buffer, text: string, kind: 'open' | 'click'): TrackingToken | null {
  if (text.length > 120) return null;
  const parts = text.split('.');
  if (parts.length !== (kind === 'open' ? 4 : 5) || parts[0] !== (kind === 'open' ? 'o' : 'k')) return null;
  const [, campaign, subscription] = parts;
  if (!ID.test(campaign) || !ID.test(subscription)) return null;
  if (kind === 'click' && !INDEX.test(parts[3])) return null;
  const sig = parts[parts.length - 1];
  if (!SIG.test(sig)) return null;
  // The signature as encodeTrackingToken writes it, character for character: one spelling a token.
  if (!sameText(sig, sign(secret, parts.slice(0, -1).join('.')).toString('base64url'))) return null;
  const campaignId = Number(campaign);
  const subscriptionId = Number(subscription);
  if (!Number.isSafeInteger(campaignId) || !Number.isSafeInteger(subscriptionId)) return null;
  return kind === 'open'
    ? { kind, campaignId, subscriptionId }
    : { kind, campaignId, subscriptionId, linkIndex: Number(parts[3]) };
}

/** Cheap shape check of a path's token, before the site's secret is even looked up. */
export function looksLikeTrackingToken(text: string, kind: 'open' | 'click'): boolean {
  return text.length <= 120 && text.startsWith(kind === 'open' ? 'o.' : 'k.');
}
