import type { Fence } from './fence';
import { MEMOIZED_INPUT } from './memoized-input.pipe';

/** Every fence of this folder: fences.spec.ts holds each to the packages installed. */
export const FENCES: Fence[] = [MEMOIZED_INPUT];
