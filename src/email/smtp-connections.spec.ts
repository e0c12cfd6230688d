import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { SmtpConnections } from './smtp-connections';

interface Sink {
  port: number;
  /** Connections the server accepted so far. */
  connections: () => number;
  /** Recipients of the messages it accepted, in order. */
  received: string[];
  /** Ends every open session from the server's side. */
  hangUp: () => void;
  close: () => Promise<void>;
}

/** A real SMTP server on 127.0.0.1 that refuses recipients starting with `refuse`. */
async function sink(port = 0): Promise<Sink> {
  let connections = 0;
  const received: string[] = [];
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
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received.push(...session.envelope.rcptTo.map((r) => r.address));
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

describe('SmtpConnections: composed messages over pooled SMTP connections', () => {
  let smtp: Sink;
  let pool: SmtpConnections;

  afterEach(async () => {
    pool?.close();
    await smtp?.close();
  });

  it('sends over at most `size` connections and keeps them for the next messages', async () => {
    smtp = await sink();
    pool = new SmtpConnections({ host: '127.0.0.1', port: smtp.port }, undefined, 3, 1000);
    const to = Array.from({ length: 40 }, (_, i) => `reader${i}@example.com`);
    const answers = await Promise.all(to.map((address) => pool.send(envelope(address), RAW)));
    expect(answers.every((a) => /^250/.test(a.response))).toBe(true);
    expect([...smtp.received].sort()).toEqual([...to].sort());
    expect(smtp.connections()).toBe(3);
    await pool.send(envelope('later@example.com'), RAW);
    expect(smtp.connections()).toBe(3);
  });

  it('keeps a connection whose message was refused, and opens a new one after maxMessages', async () => {
    smtp = await sink();
    pool = new SmtpConnections({ host: '127.0.0.1', port: smtp.port }, undefined, 1, 3);
    await expect(pool.send(envelope('refused@example.com'), RAW)).rejects.toMatchObject({
      code: 'EENVELOPE',
      responseCode: 550,
    });
    await pool.send(envelope('one@example.com'), RAW);
    await pool.send(envelope('two@example.com'), RAW);
    await pool.send(envelope('three@example.com'), RAW);
    expect(smtp.connections()).toBe(1);
    // Three messages carried: the next one goes over a new connection.
    await pool.send(envelope('four@example.com'), RAW);
    expect(smtp.connections()).toBe(2);
    expect(smtp.received).toEqual(['one@example.com', 'two@example.com', 'three@example.com', 'four@example.com']);
  });

  it('does not use a connection the server closed while it was idle', async () => {
    smtp = await sink();
    pool = new SmtpConnections({ host: '127.0.0.1', port: smtp.port }, undefined, 2, 1000);
    await Promise.all([pool.send(envelope('a@example.com'), RAW), pool.send(envelope('b@example.com'), RAW)]);
    smtp.hangUp();
    await settle();
    await pool.send(envelope('c@example.com'), RAW);
    expect(smtp.received).toEqual(expect.arrayContaining(['a@example.com', 'b@example.com', 'c@example.com']));
    expect(smtp.connections()).toBe(3);
  });

  it('fails a send when the server cannot be reached, and recovers once it can', async () => {
    const gone = await sink();
    const port = gone.port;
    await gone.close();
    pool = new SmtpConnections({ host: '127.0.0.1', port, connectionTimeout: 2000 }, undefined, 2, 1000);
    const failures = await Promise.allSettled([1, 2, 3].map((i) => pool.send(envelope(`r${i}@example.com`), RAW)));
    expect(failures.map((f) => f.status)).toEqual(['rejected', 'rejected', 'rejected']);
    smtp = await sink(port);
    await pool.send(envelope('back@example.com'), RAW);
    expect(smtp.received).toEqual(['back@example.com']);
  });

  it('sends nothing once closed', async () => {
    smtp = await sink();
    pool = new SmtpConnections({ host: '127.0.0.1', port: smtp.port }, undefined, 1, 1000);
    await pool.send(envelope('a@example.com'), RAW);
    pool.close();
    await expect(pool.send(envelope('b@example.com'), RAW)).rejects.toThrow(/closed/);
    expect(smtp.received).toEqual(['a@example.com']);
  });
});
