import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * One table's retention (docs/deployment.md, "Storage and retention"): what is old, and the
 * statement that removes (or trims) at most `limit` such rows, one short statement over an
 * index, answering the rows it touched. The statement lives in the owning module's repository.
 */
export interface RetentionRule {
  /** `<module>.<what>`, e.g. `newsletter.tracking-events`: the metrics' `rule` label. */
  name: string;
  /** The table it trims; listed in docs/deployment.md's table (a test holds them together). */
  table: string;
  /** The setting that says how long rows are kept, or null when the rule has a fixed window. */
  setting: string | null;
  /** One line: what goes, and when. */
  what: string;
  run: (db: DataSource, limit: number) => Promise<number>;
}

/**
 * The retention rules of every module, registered in their `onModuleInit` and run by the
 * maintenance job (MaintenanceService) in bounded batches.
 */
@Injectable()
export class RetentionRegistry {
  private readonly rules = new Map<string, RetentionRule>();

  register(rule: RetentionRule): void {
    if (this.rules.has(rule.name)) throw new Error(`Retention rule ${rule.name} is registered twice`);
    this.rules.set(rule.name, rule);
  }

  /** The rules in the order they were registered. */
  list(): RetentionRule[] {
    return [...this.rules.values()];
  }
}
