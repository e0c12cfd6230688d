import 'reflect-metadata';
import 'dotenv/config';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './src/database/data-source';

// The DataSource the TypeORM CLI uses (npm run migration:revert).
// It needs a running server: DATABASE_URL, or the embedded one the app starts
// (postgres://postgres:postgres@127.0.0.1:54329/sitebase by default).
const url =
  process.env.DATABASE_URL ??
  `postgres://postgres:postgres@127.0.0.1:${process.env.EMBEDDED_PG_PORT ?? 54329}/sitebase`;

export default new DataSource(buildDataSourceOptions({ url, entities: ['src/**/*.entity.ts'] }));
