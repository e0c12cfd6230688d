import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of products, variants, categories and stock (besides the shared ones, common.problems.ts). */
export const CATALOG_PROBLEMS = defineProblems('catalog', {
  duplicate_sku: 409,
  duplicate_slug: 409,
  duplicate_variant: 409,
  out_of_stock: 409,
});

export type CatalogProblem = keyof typeof CATALOG_PROBLEMS;
type Declared = typeof CATALOG_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
