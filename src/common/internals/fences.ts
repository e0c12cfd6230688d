import { CLASS_VALIDATOR_METADATA } from './class-validator-metadata';
import { EXPRESS_ROUTER } from './express-router';
import { Fence, fenceHolds, FenceWarning, installedVersion, VersionReader } from './fence';
import { MEMOIZED_INPUT } from './memoized-input.pipe';
import { NEST_METADATA } from './nest-metadata';
import { POOL_ACQUIRE_TIMER, TYPEORM_PG_POOL } from './pg-pool';
import { SHAPED_READS } from './shaped-read';

/** Every fence of this folder: fence.spec.ts holds each to the packages installed. */
export const FENCES: Fence[] = [
  MEMOIZED_INPUT,
  NEST_METADATA,
  CLASS_VALIDATOR_METADATA,
  EXPRESS_ROUTER,
  TYPEORM_PG_POOL,
  POOL_ACQUIRE_TIMER,
  SHAPED_READS,
];

/**
 * At boot: the fences around reads are checked (one warning each that does not hold); a fast
 * path's or a wrapper's fence is checked where it is installed, which then steps aside
 * (fastPathOn, fenceHolds).
 */
export function checkReadFences(warn: FenceWarning, read: VersionReader = installedVersion): void {
  for (const fence of FENCES) if (fence.kind === 'reads') fenceHolds(fence, warn, read);
}
