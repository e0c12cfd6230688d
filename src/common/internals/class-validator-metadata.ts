import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { Fence } from './fence';

/*
 * The rules class-validator keeps for a class, read where the OpenAPI document is built
 * (openapi-inputs.ts, and input/checked.ts for the @Checked marks kept among them), where the
 * pipe learns a body's array limits (errors/validation.ts) and in the tests that hold the
 * document to the rules. `getMetadataStorage()` is exported but not documented, and the shape
 * of what it answers (`ValidationMetadata`) is only reachable by a deep import: every such read
 * goes through here. Reads at declaration, not a fast path: another
 * version logs one warning at boot (checkReadFences), fence.spec.ts fails on the upgrade, and the
 * rules tests (test/foundation/openapi-rules) compare what is read here with the document.
 */
export const CLASS_VALIDATOR_METADATA: Fence = {
  name: "The reads of class-validator's rule storage (src/common/internals/class-validator-metadata.ts)",
  kind: 'reads',
  writtenFor: { 'class-validator': '0.15.1' },
};

/** One rule a validator decorator declared on a property. */
export type ValidationRule = ValidationMetadata;

/**
 * Every rule `cls` declares: its own (as decorators apply, the one nearest the property first),
 * then its ancestors'. No rule here uses
 * validation groups, so this is every rule the pipe runs (the storage's `always` and
 * `strictGroups` flags only choose among grouped rules).
 */
export function validationRules(cls: Function): ValidationRule[] {
  return getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false);
}
