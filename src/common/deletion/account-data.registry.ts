import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** What deleting an account does to one kind of data (API.md §8). */
export type DeletionAction = 'delete' | 'anonymise' | 'cancel' | 'forfeit';

export interface DeletionImpact {
  resource: string;
  count: number;
  action: DeletionAction;
}

/**
 * A module's share of an account's data. Each module registers one in onModuleInit, so the
 * preview and the purge cover modules added later without editing the account module.
 */
export interface AccountDataOwner {
  /** Stable name, e.g. 'media' or 'api_keys'. */
  name: string;
  /** Lower runs first: dependents before what they depend on. Sites and keys go last. */
  order: number;
  preview(em: EntityManager, accountId: number): Promise<DeletionImpact[]>;
  /**
   * Removes or anonymises the account's rows (and enqueues file removals). Runs in its own
   * transaction and must be safe to run again after a crash. Returns counts per resource.
   */
  purge(em: EntityManager, accountId: number): Promise<Record<string, number>>;
}

@Injectable()
export class AccountDataRegistry {
  private readonly owners = new Map<string, AccountDataOwner>();

  register(owner: AccountDataOwner): void {
    if (this.owners.has(owner.name)) throw new Error(`Account data owner ${owner.name} is registered twice`);
    this.owners.set(owner.name, owner);
  }

  list(): AccountDataOwner[] {
    return [...this.owners.values()].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  }
}
