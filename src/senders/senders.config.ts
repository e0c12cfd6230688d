import { Setting } from '../config/setting';
import { int } from '../config/setting-kinds';

/** Sender domains (docs/email.md, "Sender domains"). */
export class SendersConfig {
  /** How long verifying a sender domain waits for each DNS TXT lookup before answering 503. */
  @Setting(int(100, 30_000)) SENDER_DNS_TIMEOUT_MS = 5000;
}
