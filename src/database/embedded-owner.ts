import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which Sitebase process runs the embedded PostgreSQL of a folder. The PostgreSQL is a child
 * process that outlives a Sitebase killed with SIGKILL (or a crash that skips the exit hooks);
 * its postmaster.pid then names a live process that nothing uses, and the next start refused
 * it as "probably another Sitebase". The owner file tells the two cases apart.
 */
const OWNER_FILE = 'sitebase.pid';
/** How long a left-over PostgreSQL gets for its fast shutdown. */
const STOP_DEADLINE_MS = 30_000;

/** Whether `pid` is a live process: not a zombie, which a killed process stays until reaped. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !zombie(pid);
}

/** Linux's view of the process (state after the parenthesised name); elsewhere, not known. */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** The process in the first line of a pid file of `dir`, or null. */
function pidIn(dir: string, file: string): number | null {
  const path = join(dir, file);
  if (!existsSync(path)) return null;
  const pid = Number(readFileSync(path, 'utf8').split('\n')[0].trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** The running PostgreSQL of `dir` (its postmaster.pid), or null. */
export function postmasterOf(dir: string): number | null {
  const pid = pidIn(dir, 'postmaster.pid');
  return pid !== null && isRunning(pid) ? pid : null;
}

/** Marks this process as the one running the PostgreSQL of `dir` (written once it runs). */
export function claimEmbedded(dir: string): void {
  writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n`);
}

export function releaseEmbedded(dir: string): void {
  rmSync(join(dir, OWNER_FILE), { force: true });
}

/**
 * A PostgreSQL still running in `dir` whose Sitebase is gone: its process and the owner's, or
 * null. A folder without an owner file (a PostgreSQL started some other way) is not judged.
 */
export function leftOver(dir: string): { postmaster: number; owner: number } | null {
  const postmaster = postmasterOf(dir);
  const owner = pidIn(dir, OWNER_FILE);
  if (postmaster === null || owner === null || isRunning(owner)) return null;
  return { postmaster, owner };
}

/** Stops a left-over PostgreSQL (fast shutdown) and waits until it has let go of its folder. */
export async function stopLeftOver(dir: string, pid: number): Promise<void> {
  process.kill(pid, 'SIGINT');
  const end = Date.now() + STOP_DEADLINE_MS;
  // postmaster.pid goes at the end of the shutdown; a process nobody reaps stays a zombie.
  while (postmasterOf(dir) === pid) {
    if (Date.now() > end) throw new Error(`the PostgreSQL left running there (process ${pid}) did not stop`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
