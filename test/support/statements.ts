import { Client } from 'pg';

/** Every SQL statement this process sends to PostgreSQL while `action` runs (pg's Client.query). */
export async function statementsDuring(action: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const original = Client.prototype.query;
  const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    const text = args[0];
    seen.push(typeof text === 'string' ? text : ((text as { text?: string } | undefined)?.text ?? ''));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return seen;
}
