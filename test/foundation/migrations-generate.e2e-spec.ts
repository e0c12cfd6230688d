import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source';
import { adminQuery, TEST_ADMIN_URL_ENV, TEST_DB_PREFIX_ENV, withDatabase } from '../support/databases';

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
    expect(upQueries.map((q) => q.query)).toEqual([]);
    expect(downQueries.map((q) => q.query)).toEqual([]);
  });
});
