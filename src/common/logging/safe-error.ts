import { basename } from 'node:path';

/**
 * What a log line says of an error (docs/operations.md, "Logs"): its type, its message with any
 * file path replaced, PostgreSQL's SQLSTATE and constraint or Node's error code, and where it was
 * thrown as a file name and line. Never a stack, a statement, its parameters or a driver's
 * `detail` (which quotes the row's values): logs are read by more people than the database is.
 */
export interface LoggedError {
  type: string;
  message: string;
  code?: string;
  constraint?: string;
  at?: string;
}

/** Absolute paths (POSIX, Windows, file URLs) as they appear in messages and stack frames. */
const PATH = /(?:file:\/\/)?(?:[A-Za-z]:\\|\/)(?:[^\s'"`()<>,:\\/]+[\\/])+[^\s'"`()<>,:\\/]*/g;
const ABSOLUTE = /^(?:file:\/\/|\/|[A-Za-z]:\\)/;

/** A stack frame's file and line (`    at f (/app/dist/x.js:12:5)`), read without a backtracking pattern. */
function frame(text: string): { file: string; line: string } | undefined {
  let s = text.trim();
  if (s.endsWith(')')) s = s.slice(s.lastIndexOf('(') + 1, -1);
  else if (s.startsWith('at ')) s = s.slice(3);
  const column = s.lastIndexOf(':');
  const line = s.lastIndexOf(':', column - 1);
  if (line <= 0) return undefined;
  const file = s.slice(0, line);
  const number = s.slice(line + 1, column);
  return /^\d+$/.test(number) && ABSOLUTE.test(file) ? { file, line: number } : undefined;
}

/** A message without file paths (`ENOENT: no such file or directory, open '[path]'`), bounded. */
export function withoutPaths(text: string): string {
  return text.replace(PATH, '[path]').slice(0, 1000);
}

/** The first frame of the stack that is not Node's or a dependency's, as `file.js:line`. */
function origin(stack: string | undefined): string | undefined {
  if (!stack) return undefined;
  let first: string | undefined;
  for (const text of stack.split('\n').slice(1)) {
    const f = frame(text);
    if (!f) continue;
    const at = `${basename(f.file)}:${f.line}`;
    first ??= at;
    if (!f.file.includes('node_modules')) return at;
  }
  return first;
}

export function safeError(err: unknown): LoggedError {
  if (!(err instanceof Error)) return { type: typeof err, message: withoutPaths(String(err)) };
  const e = err as Error & { code?: unknown; constraint?: unknown; driverError?: unknown };
  const driver = (e.driverError ?? e) as { code?: unknown; constraint?: unknown };
  const code = typeof driver.code === 'string' ? driver.code : typeof e.code === 'string' ? e.code : undefined;
  const constraint = typeof driver.constraint === 'string' ? driver.constraint : undefined;
  const at = origin(e.stack);
  return {
    type: e.constructor?.name || e.name || 'Error',
    message: withoutPaths(e.message),
    ...(code ? { code } : {}),
    ...(constraint ? { constraint } : {}),
    ...(at ? { at } : {}),
  };
}

/** Nest hands error() a stack as text: only where it was thrown is kept. */
export function stackOrigin(stack: string): string | undefined {
  return origin(stack);
}
