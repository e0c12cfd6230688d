import { startApp, TestApp } from '../support/app';
import { expectOrFix } from '../support/matchers';

/**
 * What the schema builder would change in the migrated database, minus content's generated search
 * column: TypeORM finds its expression in typeorm_metadata by database name, and this worker's
 * database is a clone of the run's template under another name (migrations-generate.e2e-spec.ts
 * checks it on a database migrated under its own name).
 */
const NOT_DESCRIBED = [
  /"typeorm_metadata"/,
  /"content_items" (ADD|DROP COLUMN) "search"/,
  /INDEX "public"\."content_items_search_idx"/,
];

/**
 * The migrations build the tables, columns, types, defaults, indexes, foreign keys and CHECK
 * constraints the entities declare:
 * an entity edited without a migration, or a migration that forgot an index, fails here rather
 * than at an operator's first deploy.
 */
describe('migrations and entities', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('the migrated database has every table, column and index of the entities', async () => {
    const { upQueries } = await t.db.driver.createSchemaBuilder().log();
    const drift = upQueries.map((q) => q.query).filter((q) => !NOT_DESCRIBED.some((re) => re.test(q)));
    expectOrFix(
      'These are the statements that would make the migrated database what the entities declare: an entity ' +
        'changed without its migration. Run `npm run migration:generate -- <name>` against an up-to-date ' +
        'database, read the file it writes (src/database/migrations/, listed in its index.ts) and commit it; ' +
        'or change the entity back (docs/modules.md, "A module\'s migration")',
      () => expect(drift).toEqual([]),
    );
  });
});
