import pino from 'pino';

/**
 * Whether the process writes JSON lines: LOG_FORMAT=json, or `auto` (the default) away from a
 * terminal. Takes the raw value, so a line said before the settings load (or when they fail)
 * follows it too.
 */
export function logsJson(format: string | undefined = process.env.LOG_FORMAT): boolean {
  return format === 'json' || (format !== 'pretty' && process.stdout.isTTY !== true);
}

type Level = 'info' | 'warn' | 'error';

/**
 * A line the process says to its operator outside the log (listening, stopping, stopped, the
 * first start's key, a start-up refusal): the text as it is at a terminal; where the logs are
 * JSON, a JSON line of the log's own shape (level, time, pid, hostname, msg, and `fields`), so
 * every line of the output parses. Said whatever LOG_LEVEL is.
 */
export function say(
  text: string,
  fields: Record<string, unknown> = {},
  { level = 'info', stream = 'stdout', format }: { level?: Level; stream?: 'stdout' | 'stderr'; format?: string } = {},
): void {
  const out = stream === 'stdout' ? process.stdout : process.stderr;
  if (!logsJson(format)) {
    out.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  pino({ level: 'info' }, { write: (line: string) => void out.write(line) })[level](fields, text.trim());
}
