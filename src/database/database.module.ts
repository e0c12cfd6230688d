import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseConfig } from '../config/database.config';
import { withAdvisoryLock } from './advisory-lock';
import { buildDataSourceOptions } from './data-source';

/** Any constant works; it keeps two instances from migrating at once. */
const MIGRATION_LOCK = 7_312_000;

/** Runs pending migrations under an advisory lock, so several instances can start together. */
export async function runMigrationsLocked(ds: DataSource): Promise<string[]> {
  const done = await withAdvisoryLock(ds, MIGRATION_LOCK, () => ds.runMigrations({ transaction: 'each' }));
  return done.map((m) => m.name);
}

@Module({})
export class DatabaseModule {
  static forRoot(config: DatabaseConfig): DynamicModule {
    if (!config.DATABASE_URL)
      throw new Error('DATABASE_URL must be resolved (embedded or external) before the app starts');
    const options = {
      ...buildDataSourceOptions({ url: config.DATABASE_URL, poolSize: config.DB_POOL_SIZE }),
      autoLoadEntities: true,
      // No retries here: main.ts has reached the database already (resolve-database.ts), and a
      // failed migration is not cured by running it again. A failure fails the start, once.
      toRetry: () => false,
    };
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => options,
          dataSourceFactory: async (opts) => {
            const ds = await new DataSource(opts!).initialize();
            if (config.MIGRATIONS_RUN) {
              const applied = await runMigrationsLocked(ds);
              if (applied.length) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
            }
            return ds;
          },
        }),
      ],
    };
  }
}
