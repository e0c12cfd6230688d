import { Setting } from './setting';
import { int, listenHost, oneOf, webUrl } from './setting-kinds';

/** The server process: where it listens, how many there are, and the origin its URLs start with. */
export class ServerConfig {
  @Setting(oneOf(['development', 'production', 'test'])) NODE_ENV: 'development' | 'production' | 'test' =
    'development';
  @Setting(int(0, 65535)) PORT = 3000;
  @Setting(listenHost()) HOST = '0.0.0.0';
  /**
   * Public origin of every absolute URL the server writes (Location headers, media links, and
   * the confirmation, unsubscribe and tracking links of mail), through PublicUrls. Unset: it
   * follows PORT, http://localhost:<PORT> (loadConfigs).
   */
  @Setting(webUrl('https://api.example.com')) PUBLIC_BASE_URL = '';
  /**
   * Server processes (node cluster) sharing the port: 1 (the default) runs one; 0 one per core.
   * Each has its own pool of DB_POOL_SIZE connections (docs/performance.md, "Every core").
   */
  @Setting(int(0, 64)) WORKERS = 1;
}
