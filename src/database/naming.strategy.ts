import { DefaultNamingStrategy, NamingStrategyInterface, Table } from 'typeorm';

/**
 * `ABc` -> `a_bc`, `aC` -> `a_c`, then lower case: TypeORM's own snakeCase (typeorm/util/StringUtils,
 * not exported from its entry point), written here rather than deep-imported.
 * test/foundation/schema.e2e-spec.ts holds every table and column name it gives to the migrated
 * database, whose names TypeORM's gave.
 */
export function snakeCase(s: string): string {
  return s
    .replaceAll(/([A-Z])([A-Z])([a-z])/g, '$1_$2$3')
    .replaceAll(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

/**
 * Tables whose migrations TypeORM generated (foundation, media, content): their foreign keys carry
 * TypeORM's hashed names. Every later migration let PostgreSQL name them.
 */
const TYPEORM_NAMED_KEYS = new Set([
  'api_keys',
  'sites',
  'collections',
  'collection_items',
  'content_items',
  'content_revisions',
  'media_items',
  'media_categories',
  'media_tags',
  'media_item_categories',
  'media_item_tags',
]);

/**
 * snake_case tables, columns and join columns, as the migrations have them. It names exactly
 * what `typeorm-naming-strategies` 4.1 named (of what TypeORM 1 still asks a strategy) (its last release accepts only TypeORM 0.2 and
 * 0.3 as a peer, so it would hold TypeORM back; docs/upgrades.md), and leaves constraint and
 * index names to TypeORM's defaults as it did, so no migration changes. Foreign keys take the name
 * PostgreSQL gives an unnamed REFERENCES (`<table>_<columns>_fkey`), which the migrations used
 * (but for TYPEORM_NAMED_KEYS), so
 * `migration:generate` does not drop and re-add every one of them.
 */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override tableName(className: string, customName: string | undefined): string {
    return customName ? customName : snakeCase(className);
  }

  override columnName(propertyName: string, customName: string | undefined, embeddedPrefixes: string[]): string {
    return snakeCase(embeddedPrefixes.concat('').join('_')) + (customName ? customName : snakeCase(propertyName));
  }

  override relationName(propertyName: string): string {
    return snakeCase(propertyName);
  }

  override joinColumnName(relationName: string, referencedColumnName: string): string {
    return snakeCase(`${relationName}_${referencedColumnName}`);
  }

  override joinTableName(
    firstTableName: string,
    secondTableName: string,
    firstPropertyName: string,
    _secondPropertyName: string,
  ): string {
    return snakeCase(`${firstTableName}_${firstPropertyName.replace(/\./gi, '_')}_${secondTableName}`);
  }

  override foreignKeyName(tableOrName: Table | string, columnNames: string[]): string {
    const table = this.getTableName(tableOrName);
    if (TYPEORM_NAMED_KEYS.has(table)) return super.foreignKeyName(tableOrName, columnNames);
    return `${table}_${columnNames.join('_')}_fkey`;
  }

  override joinTableColumnName(tableName: string, propertyName: string, columnName?: string): string {
    return snakeCase(`${tableName}_${columnName ? columnName : propertyName}`);
  }
}
