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
