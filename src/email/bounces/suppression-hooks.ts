import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SiteContext } from '../../common/tenancy/site-context';
import type { BounceKind, SuppressionReason } from '../entities/email-bounce.entity';

/** An address of a site just suppressed: by a report (a bounce, a complaint), or by an operator. */
export type AddressSuppressed =
  | {
      /** Lower-cased. */
      email: string;
      reason: Exclude<SuppressionReason, 'manual'>;
      /** The report that did it. */
      kind: BounceKind;
      source: string;
      /** The message it answered, and that message's campaign when it was a campaign's copy. */
      messageId: number;
      campaignId: number | null;
    }
  | { email: string; reason: 'manual'; note: string | null };

export type SuppressionHook = (em: EntityManager, site: SiteContext, change: AddressSuppressed) => Promise<void>;

/** A suppression lifted: by the site's key (a bounce or an operator's entry), or by the person's confirmation. */
export interface AddressUnsuppressed {
  /** Lower-cased. */
  email: string;
  /** What it was suppressed as. */
  reason: SuppressionReason;
  by: 'operator' | 'person';
}

export type LiftHook = (em: EntityManager, site: SiteContext, change: AddressUnsuppressed) => Promise<void>;

/**
 * What other modules do when an address is suppressed, in the report's transaction: the
 * newsletter marks the subscription `bounced` or `complained` and records its events. The email
 * module knows nothing of subscriptions, and the newsletter depends on it: it registers here at
 * start (as it registers its template types) rather than the email module calling it.
 */
@Injectable()
export class SuppressionHooks {
  private readonly hooks: SuppressionHook[] = [];
  private readonly liftHooks: LiftHook[] = [];

  /** What to do when an address is suppressed, and (optionally) when that is lifted, undoing it. */
  register(hook: SuppressionHook, lift?: LiftHook): void {
    this.hooks.push(hook);
    if (lift) this.liftHooks.push(lift);
  }

  async run(em: EntityManager, site: SiteContext, change: AddressSuppressed): Promise<void> {
    for (const hook of this.hooks) await hook(em, site, change);
  }

  async runLift(em: EntityManager, site: SiteContext, change: AddressUnsuppressed): Promise<void> {
    for (const hook of this.liftHooks) await hook(em, site, change);
  }
}
