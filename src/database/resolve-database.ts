import { AppConfig } from '../config/app-config';
import { EmbeddedDatabase, startEmbeddedPostgres } from './embedded';

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under EMBEDDED_PG_DIR. */
export async function resolveDatabase(config: AppConfig, onLog?: (line: string) => void): Promise<EmbeddedDatabase> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, stop: () => Promise.resolve() };
  return startEmbeddedPostgres({ dir: config.EMBEDDED_PG_DIR, port: config.EMBEDDED_PG_PORT, onLog });
}
