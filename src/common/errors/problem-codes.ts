import { SetMetadata } from '@nestjs/common';

/**
 * Every problem code the API answers, with its HTTP status. It starts empty: the shared codes
 * (common.problems.ts) and each module's own (`<module>.problems.ts`) are merged into it, so the
 * problem classes (problems.ts) accept a declared code only, and only with its declared status:
 * a ConflictProblem with a misspelt code, or with a code declared as a 401, does not compile. The same declarations give the OpenAPI document its `x-problem-codes` (openapi-problems.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ProblemCodes {}

export type ProblemCode = keyof ProblemCodes;

/** The declared codes whose status is `S` (what ConflictProblem takes for 409, ...). */
export type ProblemCodeOf<S extends number> = {
  [C in ProblemCode]: ProblemCodes[C] extends S ? C : never;
}[ProblemCode];

/** The statuses a problem may have. */
export type ProblemStatus =
  400 | 401 | 403 | 404 | 405 | 406 | 409 | 410 | 412 | 413 | 415 | 416 | 422 | 429 | 500 | 503;

/** One module's codes: `{ code: status }`. */
export type ProblemDeclaration = Readonly<Record<string, ProblemStatus>>;

const declared = new Map<string, ProblemDeclaration>();

/**
 * Declares a module's problem codes (snake_case, each with the one status it is answered with).
 * The object is the module's list (`keyof typeof` it is its union); it is also kept by module
 * name for the test that walks the source (problem-codes.spec.ts).
 */
export function defineProblems<const T extends Record<string, ProblemStatus>>(module: string, codes: T): T {
  const known = declared.get(module);
  if (known && known !== codes) throw new Error(`The problem codes of ${module} are declared twice`);
  for (const code of Object.keys(codes)) {
    if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(code)) throw new Error(`Problem code ${code} is not snake_case`);
  }
  declared.set(module, Object.freeze(codes));
  return codes;
}

/** The declarations loaded so far, by module. */
export function declaredProblems(): ReadonlyMap<string, ProblemDeclaration> {
  return declared;
}

/** Metadata key of a Nest module's problem declaration (read by openapi-problems.ts). */
export const MODULE_PROBLEMS = 'sitebase:problems';

/**
 * On a Nest module: the problem codes its routes answer besides the shared ones. The document
 * lists them, with those of the modules it imports (whose services it calls), on each of its
 * operations' problem responses.
 */
export const AnswersProblems = (codes: ProblemDeclaration): ClassDecorator => SetMetadata(MODULE_PROBLEMS, codes);
