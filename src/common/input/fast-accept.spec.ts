import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { IsString, ValidateNested, validateSync } from 'class-validator';
import fc from 'fast-check';
import { ProductQueryDto } from '../../catalog/dto/product.dto';
import { ContentQueryDto } from '../../content/dto/content.dto';
import { TrackingTokenParamDto } from '../../newsletter/dto/tracking.dto';
import { createValidationPipe, VALIDATION_PIPE_OPTIONS } from '../errors/validation';
import { ValidationProblem } from '../errors/problems';
import { SiteIdParamDto } from '../http/params';
import { acceptCheckFor } from './fast-accept';
import { FORBIDDEN_KEYS } from './json-body';

class Inner {
  @IsString() name: string;
}
class WithNested {
  @ValidateNested() inner: Inner;
}

/** The pipe of the app, and Nest's own pipe with the same options: what the app's must equal. */
const fast = createValidationPipe();
const reference = new ValidationPipe(VALIDATION_PIPE_OPTIONS);

async function outcome(
  pipe: { transform: (v: unknown, m: ArgumentMetadata) => unknown },
  value: object,
  m: ArgumentMetadata,
) {
  try {
    const result = (await pipe.transform({ ...value }, m)) as object;
    return { ok: true, type: result.constructor.name, value: { ...result } };
  } catch (err) {
    return { ok: false, problem: (err as ValidationProblem).getResponse() };
  }
}

const CASES: Array<[Function, ArgumentMetadata['type'], string[]]> = [
  [TrackingTokenParamDto, 'param', ['siteName', 'token']],
  [SiteIdParamDto, 'param', ['siteName', 'id']],
  [ContentQueryDto, 'query', ['limit', 'cursor', 'status', 'type', 'tag', 'q', 'sort', 'order']],
  [ProductQueryDto, 'query', ['limit', 'cursor', 'status', 'categoryId', 'q']],
];

/** Strings near and far from what the rules want. */
const text = fc.oneof(
  fc.constantFrom('demo', 'o.1.42.Vq3w8Jb0mGZkXz1yQ2u3Aw', '1', '20', '0', '-1', '1e3', 'published', 'draft', 'post'),
  fc.constantFrom(
    '',
    ' ',
    'DEMO',
    'a'.repeat(121),
    '9007199254740993',
    'x;DROP TABLE',
    '\u0000',
    '\ud800',
    'asc',
    'desc',
  ),
  fc.string({ maxLength: 40 }),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,130}$/),
);

describe('acceptCheckFor: a yes-only answer before class-validator', () => {
  it('answers nothing for a class with rules it does not follow, or with none', () => {
    expect(acceptCheckFor(WithNested)).toBeNull();
    expect(acceptCheckFor(class NoRules {})).toBeNull();
    expect(acceptCheckFor(TrackingTokenParamDto)).toEqual(expect.any(Function));
  });

  it.each(CASES)('%p (%s): accepts exactly what class-validator accepts', (type, _kind, names) => {
    const check = acceptCheckFor(type)!;
    expect(check).not.toBeNull();
    let accepted = 0;
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), text), (input) => {
        const build = () => plainToInstance(type as new () => object, input) as Record<string, unknown>;
        const yes = check(build());
        const errors = validateSync(build(), { whitelist: true, forbidNonWhitelisted: true });
        if (yes) accepted += 1;
        expect(yes).toBe(errors.length === 0);
      }),
      { seed: 20261125, numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  // Keys of Object.prototype are refused by the app's pipe before any rule (on purpose): left out here.
  it.each(CASES)('%p (%s): the app’s pipe answers what Nest’s own pipe answers', async (type, kind, names) => {
    const key = fc.oneof(
      fc.constantFrom(...names),
      fc.string({ maxLength: 8 }).filter((k) => !FORBIDDEN_KEYS.has(k)),
    );
    const m: ArgumentMetadata = { type: kind, metatype: type as ArgumentMetadata['metatype'] };
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, text), async (input) => {
        const mine = await outcome(fast, input, m);
        if (mine.ok) accepted += 1;
        expect(mine).toEqual(await outcome(reference, input, m));
      }),
      { seed: 20261125, numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(0);
  });
});
