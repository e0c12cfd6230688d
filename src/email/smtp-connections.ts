import SMTPConnection, { SMTPConnectionAuth, SMTPConnectionOptions } from 'nodemailer/lib/smtp-connection';

/** What the SMTP server answered for a message it accepted. */
export interface SmtpAccepted {
  response: string;
}

interface Open {
  connection: SMTPConnection;
  /** Messages this connection has carried. */
  messages: number;
  /** Closed by the server, by an error or by us: never used again. */
  gone: boolean;
}

const REFUSED = new Set(['EENVELOPE', 'EMESSAGE']);

/**
 * A pool of SMTP connections (nodemailer's SMTPConnection) that carry messages already composed
 * (docs/email.md, "Delivery"). nodemailer's pooled transport composed each raw message again as
 * a MIME tree of its own (an id, a boundary, its plugins, a stream pipeline) before it reached
 * the same SMTPConnection: measured here, 750–840 µs of CPU a campaign copy, against 280 µs
 * straight over a connection. The pool keeps nodemailer's rules: at most `size` connections,
 * each logged in once and used for `maxMessages` messages; a message the server refuses (its
 * envelope or its data, other than 421) leaves the connection usable after a RSET; any other
 * failure closes it; a connection the server closed while idle is not used again.
 */
export class SmtpConnections {
  private readonly idle: Open[] = [];
  private readonly waiting: Array<(open: Open | null) => void> = [];
  private count = 0;
  private closed = false;

  constructor(
    private readonly options: SMTPConnectionOptions,
    /** Logged in with on each new connection when it names a user. */
    private readonly auth: SMTPConnectionAuth | undefined,
    private readonly size: number,
    private readonly maxMessages: number,
  ) {}

  /** Sends `raw` (a whole RFC 5322 message) to the envelope's recipients. */
  async send(envelope: { from: string; to: string[] }, raw: Buffer): Promise<SmtpAccepted> {
    const open = await this.acquire();
    let info: SMTPConnection.SentMessageInfo;
    try {
      info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) =>
        open.connection.send(envelope, raw, (err, sent) => (err ? reject(err) : resolve(sent))),
      );
    } catch (err) {
      const e = err as { code?: string; responseCode?: number };
      if (!open.gone && e.code !== undefined && REFUSED.has(e.code) && e.responseCode !== 421) {
        open.connection.reset((resetErr) => (resetErr ? this.drop(open) : this.release(open)));
      } else this.drop(open);
      throw err;
    }
    open.messages += 1;
    if (open.messages >= this.maxMessages) this.drop(open);
    else this.release(open);
    return { response: info.response ?? '' };
  }

  /** Closes the idle connections now and the others as their message ends; sends no more. */
  close(): void {
    this.closed = true;
    for (const open of this.idle.splice(0)) this.drop(open);
    for (const wake of this.waiting.splice(0)) wake(null);
  }

  private async acquire(): Promise<Open> {
    for (;;) {
      if (this.closed) throw new Error('The SMTP connections are closed');
      const idle = this.idle.pop();
      if (idle) {
        if (!idle.gone) return idle;
        continue;
      }
      if (this.count < this.size) return this.connect();
      const open = await new Promise<Open | null>((resolve) => this.waiting.push(resolve));
      if (open) return open;
    }
  }

  /** A new connection, greeted and logged in; it counts against the size from the start. */
  private async connect(): Promise<Open> {
    this.count += 1;
    const connection = new SMTPConnection(this.options);
    const open: Open = { connection, messages: 0, gone: false };
    // A connection that fails or ends, idle or not, is never used again.
    connection.on('error', () => this.forget(open));
    connection.on('end', () => this.forget(open));
    try {
      await new Promise<void>((resolve, reject) => {
        connection.once('error', reject);
        connection.connect((err?: Error) => {
          connection.removeListener('error', reject);
          if (err) reject(err);
          else resolve();
        });
      });
      const auth = this.auth;
      if (auth?.user)
        await new Promise<void>((resolve, reject) => connection.login(auth, (err) => (err ? reject(err) : resolve())));
    } catch (err) {
      this.drop(open);
      throw err;
    }
    return open;
  }

  private release(open: Open): void {
    if (open.gone) return;
    if (this.closed) return this.drop(open);
    const next = this.waiting.shift();
    if (next) next(open);
    else this.idle.push(open);
  }

  private drop(open: Open): void {
    if (!open.gone) open.connection.close();
    this.forget(open);
  }

  /** Counts a connection out once; a caller waiting for one may open another. */
  private forget(open: Open): void {
    if (open.gone) return;
    open.gone = true;
    this.count -= 1;
    const at = this.idle.indexOf(open);
    if (at >= 0) this.idle.splice(at, 1);
    const next = this.waiting.shift();
    if (next) next(null);
  }
}
