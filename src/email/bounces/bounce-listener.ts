import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { SMTPServer, SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { BouncesConfig } from './bounces.config';
import { StartupError } from '../../startup-errors';
import { parseBounceReport } from './bounce-report';
import { BouncesService } from './bounces.service';
import { ListenerRate } from './listener-rate';
import { classifyBounceAddress } from './verp';

/** An SMTP refusal: smtp-server answers with the error's responseCode and message. */
function refusal(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/**
 * The bounce listener (docs/deliverability.md): an SMTP server (npm smtp-server) on
 * BOUNCE_SMTP_HOST:BOUNCE_SMTP_PORT, off while the port is 0. It accepts mail for
 * `bounces@<BOUNCE_DOMAIN>` and `bounces+<token>@<BOUNCE_DOMAIN>` only: any other recipient is a
 * 550 (it relays nothing), and so is a token whose signature fails (a forgery, refused before its
 * data is read). Each message, at most BOUNCE_SMTP_MAX_BYTES (552 past it), is read as a DSN or an
 * ARF report; one that is neither, or names no message of ours, is accepted and ignored (a 5xx
 * would only make the reporting MTA mail a bounce of the bounce). A database failure is a 451, so
 * the reporting MTA tries again. A client past BOUNCE_SMTP_RATE_PER_MINUTE messages in a minute
 * gets a 421 at MAIL FROM (the connection closes; a real MTA tries again later).
 */
@Injectable()
export class BounceListener implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Bounces');
  private server?: SMTPServer;
  private readonly rate: ListenerRate;

  constructor(
    private readonly config: BouncesConfig,
    private readonly bounces: BouncesService,
  ) {
    this.rate = new ListenerRate(config.BOUNCE_SMTP_RATE_PER_MINUTE);
  }

  /** The port it listens on; null when it is off. */
  get port(): number | null {
    const address = this.server?.server.address() as AddressInfo | null | undefined;
    return address ? address.port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.BOUNCE_SMTP_PORT === 0) return;
    const server = new SMTPServer({
      name: this.config.BOUNCE_DOMAIN,
      banner: 'Sitebase bounce listener',
      size: this.config.BOUNCE_SMTP_MAX_BYTES,
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      maxClients: 100,
      socketTimeout: 60_000,
      // A stop waits this long for open sessions (an MTA mid-report tries again later).
      closeTimeout: 5_000,
      onMailFrom: (_address, session, callback) =>
        callback(
          this.rate.take(session.remoteAddress)
            ? undefined
            : refusal(421, '4.7.0 Too many messages from your address, try again later'),
        ),
      onRcptTo: (address, session, callback) => void this.rcpt(address, session).then(() => callback(), callback),
      onData: (stream, session, callback) => void this.data(stream, session).then(() => callback(), callback),
    });
    server.on('error', (err) => this.logger.warn({ err }, 'Bounce listener error'));
    const { BOUNCE_SMTP_PORT: port, BOUNCE_SMTP_HOST: host } = this.config;
    await new Promise<void>((resolve, reject) => {
      const fail = (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL'
            ? new StartupError(
                `The bounce listener cannot listen on ${host}:${port} (${err.code}): set BOUNCE_SMTP_PORT and BOUNCE_SMTP_HOST to a free port and an address of this machine, or BOUNCE_SMTP_PORT=0 to turn it off.`,
              )
            : err,
        );
      server.server.once('error', fail);
      server.listen(port, host, () => {
        server.server.off('error', fail);
        resolve();
      });
    });
    this.server = server;
    this.logger.log({ port: this.port, domain: this.config.BOUNCE_DOMAIN }, 'Bounce listener started');
  }

  async onModuleDestroy(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async rcpt(address: SMTPServerAddress, _session: SMTPServerSession): Promise<void> {
    const ours = classifyBounceAddress(address.address, this.config.BOUNCE_DOMAIN);
    if (ours.kind === 'foreign') throw refusal(550, '5.7.1 Relaying denied: this server receives bounces only');
    if (ours.kind === 'token' && (await this.bounces.messageOfAddress(address.address)) === null)
      throw refusal(550, '5.1.1 Unknown bounce address');
  }

  private async data(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= this.config.BOUNCE_SMTP_MAX_BYTES) chunks.push(chunk);
    }
    if (stream.sizeExceeded || size > this.config.BOUNCE_SMTP_MAX_BYTES)
      throw refusal(552, '5.3.4 Message too big for a bounce report');
    const report = await parseBounceReport(Buffer.concat(chunks)).catch(() => null);
    if (!report) return;
    let named: number | null = null;
    for (const r of session.envelope.rcptTo) named ??= await this.bounces.messageOfAddress(r.address);
    try {
      await this.bounces.record(report, named);
    } catch (err) {
      this.logger.warn({ code: (err as { code?: string }).code }, 'A bounce report could not be recorded');
      throw refusal(451, '4.3.0 Try again later');
    }
  }
}
