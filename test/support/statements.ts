import { Client } from 'pg';

/** Every SQL statement this process sends to PostgreSQL while `action` runs (pg's Client.query). */
export async function statementsDuring(action: () => Promise<void>): Promise<string[]> {
  return (await queriesDuring(action)).map((q) => q.text);
}

/** A statement as sent: its text and its parameters. */
export interface SentStatement {
  text: string;
  values: unknown[];
}

/** Every statement, with its parameters, this process sends to PostgreSQL while `action` runs. */
export async function queriesDuring(action: () => Promise<void>): Promise<SentStatement[]> {
  const seen: SentStatement[] = [];
  const original = Client.prototype.query;
  const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    const [first, second] = args;
    if (typeof first === 'string') seen.push({ text: first, values: Array.isArray(second) ? second : [] });
    else {
      const config = (first ?? {}) as { text?: string; values?: unknown[] };
      seen.push({ text: config.text ?? '', values: config.values ?? (Array.isArray(second) ? second : []) });
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return seen;
}
