import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { SmtpPool, smtpPool } from './smtp-pool';

interface Sink {
  port: number;
  /** Connections the server accepted so far. */
  connections: () => number;
  /** Recipients of the messages it accepted, in order. */
  received: string[];
  /** The bytes of each message it accepted, in order. */
  data: Buffer[];
  /** Ends every open session from the server's side. */
  hangUp: () => void;
  close: () => Promise<void>;
}

/** A real SMTP server on 127.0.0.1 that refuses recipients starting with `refuse`. */
async function sink(port = 0): Promise<Sink> {
  let connections = 0;
  const received: string[] = [];
  const data: Buffer[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('refuse'))
        return callback(Object.assign(new Error('No such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(...session.envelope.rcptTo.map((r) => r.address));
        data.push(Buffer.concat(chunks));
        callback();
      });
    },
  });
  server.server.on('connection', (socket: import('node:net').Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    connections: () => connections,
    received,
    data,
    hangUp: () => {
      for (const socket of sockets) socket.end('421 Closing\r\n');
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const RAW = Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nHello\r\n');
const envelope = (to: string) => ({ from: 'a@example.com', to: [to] });
const settle = () => new Promise((r) => setTimeout(r, 100));
const url = (port: number) => `smtp://127.0.0.1:${port}`;

/** The rules of delivery (docs/email.md, "Delivery"), as nodemailer's pool keeps them. */
describe('smtpPool: composed messages over pooled SMTP connections', () => {
  let smtp: Sink;
  let pool: SmtpPool;
  const send = (to: string) => pool.sendMail({ envelope: envelope(to), raw: RAW });

  afterEach(async () => {
    pool?.close();
    await smtp?.close();
  });

  it('sends over at most `size` connections, keeps them for the next messages, and writes the bytes as given', async () => {
    smtp = await sink();
    pool = smtpPool(url(smtp.port), 3);
    const to = Array.from({ length: 40 }, (_, i) => `reader${i}@example.com`);
    const answers = await Promise.all(to.map(send));
    expect(answers.every((a) => /^250/.test(a.response))).toBe(true);
    expect([...smtp.received].sort()).toEqual([...to].sort());
    expect(smtp.connections()).toBe(3);
    await send('later@example.com');
    expect(smtp.connections()).toBe(3);
    // Handed over composed: not composed again, not a header added.
    expect(smtp.data.every((bytes) => bytes.equals(RAW))).toBe(true);
  });

  it('keeps a connection whose message was refused, and opens a new one after maxMessages', async () => {
    smtp = await sink();
    pool = smtpPool(url(smtp.port), 1, 3);
    await expect(send('refused@example.com')).rejects.toMatchObject({ code: 'EENVELOPE', responseCode: 550 });
    await send('one@example.com');
    await send('two@example.com');
    expect(smtp.connections()).toBe(1);
    // Three messages carried (the refused one counts): the next one goes over a new connection.
    await send('three@example.com');
    expect(smtp.connections()).toBe(2);
    expect(smtp.received).toEqual(['one@example.com', 'two@example.com', 'three@example.com']);
  });

  it('does not use a connection the server closed while it was idle', async () => {
    smtp = await sink();
    pool = smtpPool(url(smtp.port), 2);
    await Promise.all([send('a@example.com'), send('b@example.com')]);
    smtp.hangUp();
    await settle();
    await send('c@example.com');
    expect(smtp.received).toEqual(expect.arrayContaining(['a@example.com', 'b@example.com', 'c@example.com']));
    expect(smtp.connections()).toBe(3);
  });

  it('fails a send when the server cannot be reached, and recovers once it can', async () => {
    const gone = await sink();
    const port = gone.port;
    await gone.close();
    pool = smtpPool(url(port), 2);
    const failures = await Promise.allSettled([1, 2, 3].map((i) => send(`r${i}@example.com`)));
    expect(failures.map((f) => f.status)).toEqual(['rejected', 'rejected', 'rejected']);
    smtp = await sink(port);
    await send('back@example.com');
    expect(smtp.received).toEqual(['back@example.com']);
  });

  it('sends nothing once closed', async () => {
    smtp = await sink();
    pool = smtpPool(url(smtp.port), 1);
    await send('a@example.com');
    pool.close();
    await expect(send('b@example.com')).rejects.toThrow(/closed/);
    expect(smtp.received).toEqual(['a@example.com']);
  });
});
