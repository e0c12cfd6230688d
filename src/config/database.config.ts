import { Setting } from './setting';
import { bool, folder, int, secret } from './setting-kinds';
import { databaseUrl } from './setting-shapes';

/** The PostgreSQL the server uses: an external one (DATABASE_URL) or the embedded one it starts. */
export class DatabaseConfig {
  /** postgres://user:password@host:5432/database (also postgresql://; ?host=/socket/folder). */
  @Setting(secret(databaseUrl())) DATABASE_URL?: string;
  @Setting(folder()) EMBEDDED_PG_DIR = '.data/postgres';
  @Setting(int(1, 65535)) EMBEDDED_PG_PORT = 54329;
  @Setting(int(1, 200)) DB_POOL_SIZE = 10;
  @Setting(bool()) MIGRATIONS_RUN = true;
}
