import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { SiteContext } from '../tenancy/site-context';
import type { DeletionImpact } from './account-data.registry';

/** The person being erased: a site user, with what identifies them elsewhere. */
export interface ErasedUser {
  id: number;
  /** Normalised (trimmed, lower-case). */
  email: string;
  name: string;
}

/**
 * A module's share of a site user's erasure (GDPR, API.md §8): what it holds of the person, and
 * how it erases or anonymises it. Each module registers one in onModuleInit, so an erasure
 * covers modules added later (newsletter subscribers, contacts, orders) without editing users.
 */
export interface UserDataOwner {
  /** Stable name, e.g. 'orders'. */
  name: string;
  /** Lower runs first; the user's own row (users) goes last. */
  order: number;
  preview(em: EntityManager, site: SiteContext, user: ErasedUser): Promise<DeletionImpact[]>;
  /** Erases or anonymises in its own transaction; safe to run again after a crash. Counts per resource. */
  erase(em: EntityManager, site: SiteContext, user: ErasedUser): Promise<Record<string, number>>;
}

@Injectable()
export class UserDataRegistry {
  private readonly owners = new Map<string, UserDataOwner>();

  register(owner: UserDataOwner): void {
    if (this.owners.has(owner.name)) throw new Error(`User data owner ${owner.name} is registered twice`);
    this.owners.set(owner.name, owner);
  }

  list(): UserDataOwner[] {
    return [...this.owners.values()].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  }
}
