import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/*
 * Code that leans on more of a library than its documented interface lives in this folder, and
 * each piece names the versions it was written against (docs/performance.md, "Fenced fast
 * paths"). At boot every fence is checked against the installed packages: a fast path whose
 * library is another version logs one warning and steps aside, so the plain path runs until
 * someone reads the code again against the new version and moves the fence.
 */

/** One piece of code that relies on what a library does beyond its documented interface. */
export interface Fence {
  /** What it is and where it lives, for the warning. */
  name: string;
  /**
   * A fast path steps aside when its fence does not hold, and so does a wrapper of a live
   * library object (what it observes goes unrecorded); reads (what Nest records of a route,
   * Express's route table) have no plain path to step aside to, and only warn.
   */
  kind: 'fast path' | 'wrapper' | 'reads';
  /** Every package it relies on, at the exact version it was written and tested against. */
  writtenFor: Record<string, string>;
}

/** A package's version as installed (its package.json), or undefined when it cannot be found. */
export type VersionReader = (pkg: string) => string | undefined;

/** Called once per fence that does not hold at boot. */
export type FenceWarning = (fence: Fence, found: Record<string, string | undefined>) => void;

export const installedVersion: VersionReader = (pkg) => {
  try {
    return readPackageJson(require.resolve(`${pkg}/package.json`)).version;
  } catch {
    // A package whose `exports` hides its package.json: found from its entry point.
    return packageJsonAbove(pkg);
  }
};

function packageJsonAbove(pkg: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(require.resolve(pkg));
  } catch {
    return undefined;
  }
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const json = readPackageJson(file);
      if (json.name === pkg) return json.version;
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function readPackageJson(file: string): { name?: string; version?: string } {
  return JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
}

/** The packages of `fence` installed at another version than it was written for (empty: it holds). */
export function versionsFound(
  fence: Fence,
  read: VersionReader = installedVersion,
): Record<string, string | undefined> {
  const found: Record<string, string | undefined> = {};
  for (const [pkg, version] of Object.entries(fence.writtenFor)) {
    const installed = read(pkg);
    if (installed !== version) found[pkg] = installed;
  }
  return found;
}

/** Whether the installed packages are the ones `fence` was written for; warns once when not. */
export function fenceHolds(fence: Fence, warn: FenceWarning, read: VersionReader = installedVersion): boolean {
  const found = versionsFound(fence, read);
  if (Object.keys(found).length === 0) return true;
  warn(fence, found);
  return false;
}

/** The one switch of every fast path (the FAST_PATHS setting). */
export interface FastPathSetting {
  FAST_PATHS: boolean;
}

/** Whether a fenced fast path runs: the setting allows fast paths and its fence holds. */
export function fastPathOn(
  fence: Fence,
  config: FastPathSetting,
  warn: FenceWarning,
  read: VersionReader = installedVersion,
): boolean {
  return config.FAST_PATHS && fenceHolds(fence, warn, read);
}

const STEPS: Record<Fence['kind'], string> = {
  'fast path': 'it steps aside and the plain path runs',
  wrapper: 'it steps aside and the library runs unwrapped (what it observes goes unrecorded)',
  reads: 'what it reads may be shaped otherwise; run the contract tests',
};

/** The warning a fence that does not hold logs, through the app's logger. */
export function fenceWarning(log: { warn(details: object, message: string): void }): FenceWarning {
  return (fence, found) =>
    log.warn(
      { fence: fence.name, writtenFor: fence.writtenFor, found },
      `${fence.name} was written for ${describe(fence.writtenFor)} and finds ${describe(found)}: ` +
        STEPS[fence.kind] +
        ' (docs/performance.md, "Fenced fast paths")',
    );
}

function describe(versions: Record<string, string | undefined>): string {
  return Object.entries(versions)
    .map(([pkg, version]) => `${pkg} ${version ?? '(not installed)'}`)
    .join(', ');
}
