import { ValueTransformer } from 'typeorm';

/** pg returns bigint as a string; ids stay far below 2^53, so they travel as JSON numbers. */
export const idTransformer: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null || value === undefined ? value : Number(value)),
};

/** bigint[] columns come back as string arrays. */
export const idArrayTransformer: ValueTransformer = {
  to: (value: number[] | null | undefined) => value,
  from: (value: string[] | null) => (value ? value.map(Number) : value),
};
