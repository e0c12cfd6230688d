import { Injectable } from '@nestjs/common';
import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/** What deleting an account does to one kind of data. */
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
  /** The entities whose account rows it removes (a test checks every site or account table has an owner). */
  entities: Array<EntityTarget<ObjectLiteral>>;
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

/** One table of a module's data, as siteTablesOwner() removes it. */
export interface OwnedTable {
  /** Its name in the preview and the purge counts, e.g. 'content_items'. */
  resource: string;
  entity: EntityTarget<ObjectLiteral>;
  /** How its rows belong to the account: through their site (site_id, the default) or account_id. */
  scope?: 'site' | 'account';
  /**
   * Rows found through their parent's id (`user_id` of `site_users`), where the table's own
   * indexes lead with that column and not with site_id: the preview and the purge then read an
   * index range per parent instead of the whole table.
   */
  via?: ParentPath;
}

/** A parent table and the column that names it; the parent may itself be found through its own. */
export interface ParentPath {
  column: string;
  parent: string;
  via?: ParentPath;
}

function throughParents(path: ParentPath): string {
  return `${path.column} IN (SELECT id FROM ${path.parent} WHERE ${path.via ? throughParents(path.via) : OF_ACCOUNT.site})`;
}

export const OF_ACCOUNT = {
  site: 'site_id IN (SELECT id FROM sites WHERE account_id = :accountId)',
  account: 'account_id = :accountId',
};

/**
 * The usual owner: deletes the account's rows of these tables, in the order given (dependents
 * first), and previews their counts. Modules whose data needs more (files, anonymising) write
 * their own AccountDataOwner in `<module>-data.owner.ts`.
 */
export function tablesOwner(name: string, order: number, tables: OwnedTable[]): AccountDataOwner {
  const where = (t: OwnedTable) => (t.via ? throughParents(t.via) : OF_ACCOUNT[t.scope ?? 'site']);
  return {
    name,
    order,
    entities: tables.map((t) => t.entity),
    preview: async (em, accountId) => {
      const impacts: DeletionImpact[] = [];
      // What they depend on first: the order a reader expects (items, then their revisions).
      for (const t of [...tables].reverse()) {
        const count = await em
          .createQueryBuilder(t.entity, 'x')
          .where(t.via ? where(t) : `x.${where(t)}`, { accountId })
          .getCount();
        impacts.push({ resource: t.resource, count, action: 'delete' });
      }
      return impacts;
    },
    purge: async (em, accountId) => {
      const counts: Record<string, number> = {};
      for (const t of tables) {
        const result = await em.createQueryBuilder().delete().from(t.entity).where(where(t), { accountId }).execute();
        counts[t.resource] = result.affected ?? 0;
      }
      return counts;
    },
  };
}
