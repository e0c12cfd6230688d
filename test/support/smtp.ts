import { ParsedMail, simpleParser } from 'mailparser';
import { scaled } from './time-scale';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The SMTP envelope. */
  from: string;
  to: string[];
  /** The raw message, as the server received it. */
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** DATA commands answered so far, accepted or refused. */
  attempts: number;
  /** Resolves once `count` mails were accepted. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Called for each DATA; a code refuses the message with it (e.g. 451, 550), null accepts. */
  refuse?: (attempt: number) => number | null;
  /** Answers each DATA this much later: a slow server, so that a backlog builds up. */
  delayMs?: number;
}

/**
 * An SMTP server in the test process (npm smtp-server) on 127.0.0.1, parsing what it receives
 * with mailparser: the peer the app's nodemailer pool talks to.
 */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => boolean>();
  const sink: SmtpSink = {
    url: '',
    received,
    attempts: 0,
    waitFor: (count, timeoutMs = 15000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return false;
          clearTimeout(timer);
          resolve(received.slice(0, count));
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`SMTP sink: ${received.length} of ${count} mails within ${timeoutMs} ms`));
        }, scaled(timeoutMs));
        if (!check()) waiters.add(check);
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        sink.attempts += 1;
        const code = options.refuse?.(sink.attempts) ?? null;
        if (code !== null) {
          const err = new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later') as Error & {
            responseCode: number;
          };
          err.responseCode = code;
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        void simpleParser(raw).then((parsed) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            parsed,
          });
          for (const check of [...waiters]) if (check()) waiters.delete(check);
          if (options.delayMs) setTimeout(() => callback(null, 'Queued as test'), options.delayMs);
          else callback(null, 'Queued as test');
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return sink;
}
