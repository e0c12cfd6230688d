import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source';
import { adminQuery, TEST_ADMIN_URL_ENV, TEST_DB_PREFIX_ENV, withDatabase } from '../support/databases';
import { expectOrFix } from '../support/matchers';

/**
 * `npm run migration:generate` against a database `npm run migration:run` brought up to date
 * writes nothing: every table, column, index, foreign key and CHECK the migrations made is one the
 * entities declare under the same name, so a module's generated migration holds only its own
 * statements. The data source is the command's (every entity file, not only those a module
 * registers). The database is migrated here rather than cloned from the run's template: TypeORM
 * keys the generated column's expression (typeorm_metadata) by database name, and a clone under
 * another name would have content_items.search rebuilt.
 */
describe('npm run migration:generate', () => {
  const admin = process.env[TEST_ADMIN_URL_ENV]!;
  const name = `${process.env[TEST_DB_PREFIX_ENV]}_xgenerate${process.env.JEST_WORKER_ID ?? '1'}`;
  let ds: DataSource;
  beforeAll(async () => {
    await adminQuery(admin, `DROP DATABASE IF EXISTS "${name}"`);
    await adminQuery(admin, `CREATE DATABASE "${name}"`);
    const url = withDatabase(admin, name);
    ds = await new DataSource(buildDataSourceOptions({ url, entities: ['src/**/*.entity.ts'] })).initialize();
    await ds.runMigrations({ transaction: 'each' });
  });
  afterAll(async () => {
    await ds?.destroy();
    await adminQuery(admin, `DROP DATABASE IF EXISTS "${name}"`);
  });

  it('finds no statement to generate against the migrated database', async () => {
    expect(await ds.showMigrations()).toBe(false);
    expect(ds.entityMetadatas.length).toBeGreaterThan(50);
    const { upQueries, downQueries } = await ds.driver.createSchemaBuilder().log();
    expectOrFix(
      '`npm run migration:generate` would write these against a database the migrations brought up to date: ' +
        'an entity (any src/**/*.entity.ts, registered or not) differs from what the migrations made. Generate ' +
        'the missing migration (`npm run migration:generate -- <name>`), or, for a rename only, declare the ' +
        "schema's own names on the entity: @Index('<table>_<columns>_idx', …), @Check('<table>_<column>_check', " +
        "…), @ForeignKey('<table>', …) for a key to another module's table (docs/modules.md, \"A module's migration\")",
      () => {
        expect(upQueries.map((q) => q.query)).toEqual([]);
        expect(downQueries.map((q) => q.query)).toEqual([]);
      },
    );
  });
});
