import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How Nest registers a global step: a provider token, or the application's own methods. */
const GLOBAL_STEP =
  /\b(APP_GUARD|APP_INTERCEPTOR|APP_PIPE|APP_FILTER|useGlobal(?:Guards|Interceptors|Pipes|Filters))\b/g;

describe('the request pipeline', () => {
  it('registers every global guard, interceptor, pipe and filter: no other file of src does', () => {
    const src = __dirname;
    const elsewhere = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && f !== 'http-pipeline.ts')
      .flatMap((f) => [...readFileSync(join(src, f), 'utf8').matchAll(GLOBAL_STEP)].map((m) => `${f}: ${m[1]}`));
    expect(elsewhere).toEqual([]);
    const pipeline = [...readFileSync(join(src, 'http-pipeline.ts'), 'utf8').matchAll(GLOBAL_STEP)].map((m) => m[1]);
    expect(new Set(pipeline)).toEqual(new Set(['APP_GUARD', 'APP_INTERCEPTOR', 'useGlobalPipes', 'useGlobalFilters']));
  });
});
