import { Setting } from './setting';
import { int, oneOf } from './setting-kinds';

/** What the server logs, and how (docs/operations.md). */
export class LoggingConfig {
  @Setting(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])) LOG_LEVEL:
    'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' = 'info';
  /** auto: readable lines when stdout is a terminal, JSON lines otherwise. */
  @Setting(oneOf(['auto', 'json', 'pretty'])) LOG_FORMAT: 'auto' | 'json' | 'pretty' = 'auto';
  /** Requests slower than this are logged at warn with their route (docs/operations.md); 0: off. */
  @Setting(int(0, 3_600_000)) SLOW_REQUEST_MS = 1000;
}
