import { ArgumentMetadata, PipeTransform, Type } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import fc from 'fast-check';
import { createValidationPipe } from '../../src/common/errors/validation';
import { buildOpenApiDocument, operationId } from '../../src/common/openapi/openapi';
import { operationInputs } from '../../src/common/openapi/openapi-inputs';
import { FORBIDDEN_KEYS } from '../../src/common/input/json-body';
import { MemoizedInputPipe } from '../../src/common/internals/memoized-input.pipe';
import { OpenApiDocument, Schema } from '../support/openapi-operations';
import { validValue } from '../support/schema-arbitrary';
import { startApp } from '../support/app';

/*
 * The params/query fast path (the memo, src/common/internals) against the plain pipe, over every
 * param and query DTO class the app's routes take, found by walking its controllers: for
 * generated inputs, the memo's first answer and its answer from memory are the plain pipe's
 * (the same class and fields, or the same problem). docs/performance.md, "Fenced fast paths".
 */

interface InputClass {
  cls: Type;
  kind: 'query' | 'param';
  /** The documented parameters of the first operation that takes it (path or query). */
  params: Array<{ name: string; schema: Schema; required: boolean }>;
  operation: string;
}

interface DocOperation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
}

/** Every param and query class of the app, once each, with the parameters documented for it. */
function inputClasses(doc: OpenApiDocument, inputs: ReturnType<typeof operationInputs>): InputClass[] {
  const found = new Map<Function, InputClass>();
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item) as unknown as DocOperation[]) {
      const taken = inputs.get(op.operationId);
      if (!taken) continue;
      for (const kind of ['query', 'param'] as const)
        for (const cls of taken[kind]) {
          if (found.has(cls)) continue;
          const params = (op.parameters ?? [])
            .filter((p) => p.in === (kind === 'param' ? 'path' : 'query'))
            .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required === true }));
          found.set(cls, { cls, kind, params, operation: op.operationId });
        }
    }
  return [...found.values()];
}

/** Text near and far from what rules want, as a URL gives it (always strings). */
const NEAR = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e3',
  'abc',
  'DEMO',
  'true',
  'null',
  '9007199254740993',
  '2026-13-01T00:00:00Z',
  'a'.repeat(201),
  '\u0000',
  'x;DROP TABLE',
);

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** A value for one documented parameter: valid (most often), near a rule, any text, or a repeated query key. */
function valueFor(doc: OpenApiDocument, schema: Schema, kind: 'query' | 'param'): fc.Arbitrary<unknown> {
  const valid = validValue(doc, schema).map((v) => (Array.isArray(v) ? v.map(asText) : asText(v)));
  const choices: Array<{ arbitrary: fc.Arbitrary<unknown>; weight: number }> = [
    { arbitrary: valid, weight: 6 },
    { arbitrary: NEAR, weight: 2 },
    { arbitrary: fc.string({ maxLength: 24 }), weight: 1 },
  ];
  // `?tag=a&tag=b`: Express gives the key's values as an array.
  const repeated = fc.array(validValue(doc, schema).map(asText), { minLength: 2, maxLength: 2 });
  if (kind === 'query') choices.push({ arbitrary: repeated, weight: 1 });
  return fc.oneof(...choices);
}

/** Inputs for a class: every path parameter (a route's params are all there), queries with some left out or added. */
function inputsFor(doc: OpenApiDocument, c: InputClass): fc.Arbitrary<Record<string, unknown>> {
  const shape = Object.fromEntries(c.params.map((p) => [p.name, valueFor(doc, p.schema, c.kind)]));
  if (c.kind === 'param') return fc.record(shape);
  const extra = fc.dictionary(
    fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.constantFrom(...FORBIDDEN_KEYS)),
    fc.string({ maxLength: 8 }),
    { maxKeys: 1 },
  );
  return fc
    .tuple(fc.record(shape, { requiredKeys: [] }), fc.option(extra, { freq: 5, nil: undefined }))
    .map(([known, more]) => ({ ...more, ...known }));
}

async function outcome(pipe: PipeTransform, input: Record<string, unknown>, m: ArgumentMetadata) {
  try {
    const result = (await pipe.transform({ ...input }, m)) as object;
    return { ok: true, type: result.constructor.name, fields: { ...result } };
  } catch (err) {
    const problem = (err as { getResponse?: () => unknown }).getResponse?.();
    return { ok: false, problem: problem ?? String(err) };
  }
}

describe('The params/query memo answers what the plain pipe answers', () => {
  let classes: InputClass[];
  let doc: OpenApiDocument;

  beforeAll(async () => {
    const t = await startApp();
    try {
      doc = buildOpenApiDocument(t.app) as unknown as OpenApiDocument;
      classes = inputClasses(doc, operationInputs(t.app, operationId));
    } finally {
      await t.close();
    }
  });

  it('finds every param and query class by walking the routes', () => {
    const names = classes.map((c) => c.cls.name);
    expect(new Set(names).size).toBe(names.length);
    expect(classes.filter((c) => c.kind === 'query').length).toBeGreaterThan(20);
    expect(classes.filter((c) => c.kind === 'param').length).toBeGreaterThan(15);
    expect(names).toEqual(expect.arrayContaining(['TrackingTokenParamDto', 'ContentQueryDto', 'SiteIdParamDto']));
  });

  it('for generated inputs of each class: first answer, answer from memory, and the plain pipe agree', async () => {
    // One memo for every class, as in the app: one class's answers must never reach another's.
    const memo = new MemoizedInputPipe(createValidationPipe());
    const plain = createValidationPipe();
    const accepted = new Map<string, number>();
    for (const c of classes) {
      const m: ArgumentMetadata = { type: c.kind, metatype: c.cls };
      await fc.assert(
        fc.asyncProperty(inputsFor(doc, c), async (input) => {
          const expected = await outcome(plain, input, m);
          const first = await outcome(memo, input, m);
          const again = await outcome(memo, input, m);
          if (expected.ok) accepted.set(c.cls.name, (accepted.get(c.cls.name) ?? 0) + 1);
          expect({ class: c.cls.name, first, again }).toEqual({ class: c.cls.name, first: expected, again: expected });
        }),
        { seed: 20261126, numRuns: 150 },
      );
    }
    // Every class was seen passing as well as failing: generated inputs reach its rules.
    expect(classes.map((c) => c.cls.name).filter((name) => !accepted.get(name))).toEqual([]);
  });

  it('is the app’s global pipe exactly when FAST_PATHS is on', async () => {
    for (const FAST_PATHS of ['true', 'false']) {
      const t = await startApp({ env: { FAST_PATHS } });
      try {
        const pipes = t.app.get(ApplicationConfig).getGlobalPipes();
        expect({ FAST_PATHS, memo: pipes.map((p) => p instanceof MemoizedInputPipe) }).toEqual({
          FAST_PATHS,
          memo: [FAST_PATHS === 'true'],
        });
      } finally {
        await t.close();
      }
    }
  });
});
