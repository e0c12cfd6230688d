import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type Lookup = (
  targetConstructor: Function,
  targetSchema: string,
  always: boolean,
  strictGroups: boolean,
  groups?: string[],
) => ValidationMetadata[];

let installed = false;

/**
 * Memoises class-validator's `getTargetValidationMetadatas`, which every `validate()` calls:
 * to find a class's inherited rules it tests the class against every class that has rules
 * (`prototype instanceof`), on every call, so its cost grows with the number of DTOs in the
 * app (class-validator issue #2686). Profiles of a tracking request showed it at 4.7 % of the
 * server's CPU. What it answers for a class is fixed once that class and its ancestors are
 * defined (their decorators ran when they were), which is before any instance can be validated;
 * so the first answer for each class and set of options is kept (per class in a WeakMap) and
 * given again. Rules are registered by decorators only: nothing here adds rules at run time.
 */
export function memoizeValidationMetadata(): void {
  if (installed) return;
  installed = true;
  const storage = getMetadataStorage() as unknown as { getTargetValidationMetadatas: Lookup };
  const original: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const byClass = new WeakMap<Function, Map<string, ValidationMetadata[]>>();
  storage.getTargetValidationMetadatas = (targetConstructor, targetSchema, always, strictGroups, groups) => {
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let answers = byClass.get(targetConstructor);
    if (!answers) byClass.set(targetConstructor, (answers = new Map<string, ValidationMetadata[]>()));
    let found = answers.get(key);
    if (!found) answers.set(key, (found = original(targetConstructor, targetSchema, always, strictGroups, groups)));
    return found;
  };
}
