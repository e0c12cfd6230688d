import { DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from './naming.strategy';
import { MIGRATIONS } from './migrations';
import { installTimestampParser } from './pg-timestamps';

export interface DataSourceSettings {
  url: string;
  poolSize?: number;
  /** Entity classes or globs; the app passes none and lets Nest collect them per module. */
  entities?: DataSourceOptions['entities'];
  applicationName?: string;
}

/** One definition of the connection, shared by the app, ormconfig.ts (CLI) and the tests. */
export function buildDataSourceOptions(s: DataSourceSettings): DataSourceOptions {
  // pg's type parsers are global: every connection of the process reads timestamps faster.
  installTimestampParser();
  return {
    type: 'postgres',
    url: s.url,
    namingStrategy: new SnakeNamingStrategy(),
    entities: s.entities ?? [],
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    applicationName: s.applicationName ?? 'sitebase',
    extra: { max: s.poolSize ?? 10 },
  };
}
