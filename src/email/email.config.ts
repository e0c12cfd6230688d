import { Setting } from '../config/setting';
import { DAY_SECONDS, int, secret } from '../config/setting-kinds';
import { mailbox, smtpUrl } from '../config/setting-shapes';

/** Email (docs/email.md): the SMTP server mail goes through, its sender, and retries. */
export class EmailConfig {
  /** smtp://user:pass@host:587 or smtps://…:465; empty: messages are recorded and logged, not sent. */
  @Setting(secret(smtpUrl())) SMTP_URL = '';
  /**
   * The envelope sender of all mail, and the From of sites whose address is not at a domain their
   * account verified (docs/email.md, "Sender domains"): an address, or `Name <address>`.
   */
  @Setting(mailbox()) MAIL_FROM = 'Sitebase <no-reply@localhost>';
  /** Connections the pooled SMTP transport keeps open. */
  @Setting(int(1, 100)) SMTP_POOL_SIZE = 5;
  /** Retries of a message the SMTP server refuses for now (4xx, connection errors), with backoff. */
  @Setting(int(0, 50)) EMAIL_RETRY_LIMIT = 8;
  /** First retry delay in seconds; each later one doubles it. */
  @Setting(int(1, DAY_SECONDS)) EMAIL_RETRY_DELAY_SECONDS = 30;
  /**
   * Days a sent or failed message keeps its HTML and text (transactional and series mail; a
   * campaign copy stores none); then the maintenance job drops them and the metadata stays. 0
   * keeps none: a body is dropped as soon as its message is sent or fails for good.
   */
  @Setting(int(0, 3650)) EMAIL_BODY_RETENTION_DAYS = 30;
  /** Days a message's record (recipient, status, SMTP answer) and a campaign's recipient rows are kept. */
  @Setting(int(1, 3650)) EMAIL_MESSAGE_RETENTION_DAYS = 365;
}
