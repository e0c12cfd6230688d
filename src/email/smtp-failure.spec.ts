import { createServer } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { smtpFailure } from './email-transport';

/** What nodemailer throws against a real SMTP peer (smtp-server) or none, and the line it logs. */
describe('smtpFailure', () => {
  const message = { from: 'a@example.com', to: 'b@example.com', subject: 's', text: 't' };
  const failure = async (url: string) => {
    const transport = nodemailer.createTransport(url);
    try {
      await transport.sendMail(message);
      throw new Error('sent');
    } catch (err) {
      return smtpFailure(err as { code?: string; responseCode?: number });
    } finally {
      transport.close();
    }
  };
  const listen = (server: SMTPServer) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port)),
    );

  it('names an unreachable server as such, not as a refusal', async () => {
    // A port nobody listens on: taken, then freed.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
    expect(await failure(`smtp://127.0.0.1:${port}`)).toBe(
      'The SMTP server of SMTP_URL could not be reached (ESOCKET)',
    );
  });

  it('names a refused login and a refused message with its reply code', async () => {
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      onAuth: (_auth, _session, cb) => cb(new Error('no')),
      onRcptTo: (_address, _session, cb) => cb(Object.assign(new Error('no such user'), { responseCode: 550 })),
      authOptional: true,
    });
    const port = await listen(server);
    try {
      expect(await failure(`smtp://u:p@127.0.0.1:${port}`)).toBe('The SMTP server refused the login of SMTP_URL');
      expect(await failure(`smtp://127.0.0.1:${port}`)).toBe('The SMTP server refused a message (550)');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
