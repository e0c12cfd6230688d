import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import { COMMON_PROBLEMS } from '../errors/common.problems';
import { MODULE_PROBLEMS, ProblemDeclaration } from '../errors/problem-codes';
import { routeHandlers } from './openapi-handlers';

/** A module as Nest's container keeps it (its public type, without a deep import). */
type Module = NonNullable<ReturnType<ModulesContainer['get']>>;

/** The extension each problem response carries: the codes it may have, sorted. */
export const PROBLEM_CODES = 'x-problem-codes';

/**
 * Writes on every problem response of the document the codes it may carry
 * (docs/openapi.md, "Problem codes"): the shared ones (common.problems.ts) and those of the
 * operation's module and of every module it imports, whose services it calls
 * (`<module>.problems.ts`, found through @AnswersProblems), each under its own status. The same
 * declarations type the problem classes, so the document cannot list a code the code does not
 * declare, nor miss one it throws.
 */
export function documentProblemCodes(
  document: OpenAPIObject,
  app: INestApplication,
  operationId: (controller: string, method: string) => string,
): void {
  const codes = codesByOperation(app, operationId);
  for (const item of Object.values(document.paths)) {
    for (const op of [item.get, item.put, item.post, item.delete, item.patch]) {
      const declared = op?.operationId ? codes.get(op.operationId) : undefined;
      if (!op || !declared) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const answer = response as ResponseObject;
        if (!answer.content?.['application/problem+json']) continue;
        const list = declared
          .filter(([, s]) => String(s) === status)
          .map(([code]) => code)
          .sort();
        if (list.length === 0) continue;
        // The description names the module's own codes (the shared ones are the same on every
        // operation); the extension has them all. A copy: swagger may share one response object.
        const own = list.filter((code) => !(code in COMMON_PROBLEMS));
        op.responses[status] = {
          ...answer,
          description: own.length
            ? `${answer.description} (besides the shared codes: ${own.map((c) => `\`${c}\``).join(', ')})`
            : answer.description,
          [PROBLEM_CODES]: list,
        } as ResponseObject;
      }
    }
  }
}

/** Each operation's declared codes with their statuses. */
function codesByOperation(
  app: INestApplication,
  operationId: (controller: string, method: string) => string,
): Map<string, Array<[string, number]>> {
  const byOperation = new Map<string, Array<[string, number]>>();
  const codesOf = new Map<Module, Array<[string, number]>>();
  for (const r of routeHandlers(app, operationId)) {
    let codes = codesOf.get(r.module);
    if (!codes) {
      const all = new Map<string, number>(Object.entries(COMMON_PROBLEMS));
      for (const declaration of declarationsReachedFrom(r.module))
        for (const [code, status] of Object.entries(declaration)) all.set(code, status);
      codesOf.set(r.module, (codes = [...all]));
    }
    byOperation.set(r.operationId, [...codes]);
  }
  return byOperation;
}

/** The declarations of a module and of the modules it imports, directly or not. */
function declarationsReachedFrom(start: Module): ProblemDeclaration[] {
  const seen = new Set<Module>();
  const found: ProblemDeclaration[] = [];
  const visit = (module: Module) => {
    if (seen.has(module)) return;
    seen.add(module);
    const declaration = module.metatype
      ? (Reflect.getMetadata(MODULE_PROBLEMS, module.metatype) as ProblemDeclaration | undefined)
      : undefined;
    if (declaration) found.push(declaration);
    for (const imported of module.imports) visit(imported);
  };
  visit(start);
  return found;
}
