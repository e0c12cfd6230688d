/**
 * Set by main's signal handler, first thing. A terminal's Ctrl-C reaches the whole process
 * group, the embedded PostgreSQL too, which then ends every connection (57P01 admin_shutdown)
 * while the app is still closing; the connections' own error handlers read this to tell a
 * stop they are part of from a database lost under a running server.
 */
let stopping = false;

export function markProcessStopping(): void {
  stopping = true;
}

export function processStopping(): boolean {
  return stopping;
}

/**
 * How long a lost connection waits before it is reported: the PostgreSQL's end of it can reach
 * this process before the signal that stops them both does (a process group's SIGINT).
 */
const SIGNAL_RACE_MS = 500;

/**
 * Reports a lost connection unless the process is stopping, now or within SIGNAL_RACE_MS: a
 * stop logs only that it stopped, and a database lost under a running server is still said.
 */
export function unlessStopping(report: () => void, quiet?: () => void): void {
  if (stopping) return quiet?.();
  setTimeout(() => (stopping ? quiet?.() : report()), SIGNAL_RACE_MS).unref();
}
