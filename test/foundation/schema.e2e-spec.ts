import { startApp, TestApp } from '../support/app';

/**
 * What the schema builder would change in the migrated database, minus what entities do not
 * describe: foreign keys and CHECK constraints (named by hand in the migrations, and some
 * references cross module boundaries the entities keep apart), and content's generated search
 * column, which TypeORM cannot compare and always rebuilds.
 */
const NOT_DESCRIBED = [
  /CONSTRAINT "(FK_[0-9a-f]+|[a-z_]+_fkey|[a-z_]+_check)"/,
  /"typeorm_metadata"/,
  /"content_items" (ADD|DROP COLUMN) "search"/,
  /INDEX "public"\."content_items_search_idx"/,
];

/**
 * The migrations build the tables, columns, types, defaults and indexes the entities declare:
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
    expect(drift).toEqual([]);
  });
});
