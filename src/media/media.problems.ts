import { defineProblems } from '../common/errors/problem-codes';

/** The problem codes of the media library, uploads and served files (besides the shared ones, common.problems.ts). */
export const MEDIA_PROBLEMS = defineProblems('media', {
  malformed_multipart: 400,
  too_many_parts: 400,
  unreadable_image: 400,
  duplicate_slug: 409,
  image_too_large: 413,
  range_not_satisfiable: 416,
});

export type MediaProblem = keyof typeof MEDIA_PROBLEMS;
type Declared = typeof MEDIA_PROBLEMS;

declare module '../common/errors/problem-codes' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges into the registry
  interface ProblemCodes extends Declared {}
}
