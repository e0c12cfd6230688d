/**
 * The tests that hold a new module to the kit besides its own (docs/modules.md, "Adding a
 * module"): what the generator tells its user to run. The generator's own test runs the
 * `PROOF_CHECKS` on a copy; the two `WALKERS` call every operation and cause every event of
 * the app (about 40 CPU-seconds each), so they run on the real tree only, where every module is.
 */
export const PROOF_CHECKS = [
  'test/contract.e2e-spec.ts',
  'test/foundation/module-kit',
  'test/foundation/routes',
  'test/foundation/health-docs',
  'test/foundation/key-permissions',
  'test/foundation/migrations-generate',
  'test/foundation/shaped-reads-sql',
] as const;

export const WALKERS = ['test/foundation/tenant-isolation', 'test/foundation/events-catalog'] as const;

export const MODULE_CHECKS = [...PROOF_CHECKS, ...WALKERS];
