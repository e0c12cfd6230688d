import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { declaredProblems, ProblemDeclaration } from './problem-codes';

const SRC = join(__dirname, '..', '..');

/** Folders of the foundation: their codes are the shared ones (common.problems.ts). */
const FOUNDATION = new Set(['common', 'database', 'config', 'cli', 'bootstrap']);

/** A code thrown in the source: where, and with which status the helper gives it. */
interface Thrown {
  file: string;
  code: string;
  status: number;
}

const HELPERS: Array<[RegExp, number | undefined]> = [
  [/new BadRequestProblem\(\s*'([a-z0-9_]+)'/g, 400],
  [/new UnauthorizedProblem\(\s*'([a-z0-9_]+)'/g, 401],
  [/new ForbiddenProblem\(\s*'([a-z0-9_]+)'/g, 403],
  [/new NotFoundProblem\((?:[^;()]|\([^()]*\))*?,\s*'([a-z0-9_]+)'\s*\)/g, 404],
  [/new ConflictProblem\(\s*'([a-z0-9_]+)'/g, 409],
];
const EXPLICIT = [/status: (\d{3}),\s*code: '([a-z0-9_]+)'/g, /withStatus\((\d{3}),\s*'([a-z0-9_]+)'/g];

/** The codes a source file throws through the problem classes (problems.ts). */
function thrownIn(file: string, text: string): Thrown[] {
  const found: Thrown[] = [];
  for (const [pattern, status] of HELPERS) {
    for (const m of text.matchAll(pattern)) found.push({ file, code: m[1], status: status! });
  }
  for (const pattern of EXPLICIT) {
    for (const m of text.matchAll(pattern)) found.push({ file, code: m[2], status: Number(m[1]) });
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
    .map((f) => join(dir, f));
}

/** The module a file belongs to: its first folder under src/, or `common` for the foundation. */
function ownerOf(file: string): string {
  const top = relative(SRC, file).split(sep)[0];
  return FOUNDATION.has(top) || !relative(SRC, file).includes(sep) ? 'common' : top;
}

/** What is wrong with the thrown codes given the declarations: one line each. */
function undeclared(thrown: Thrown[], declarations: ReadonlyMap<string, ProblemDeclaration>): string[] {
  const common = declarations.get('common') ?? {};
  return thrown.flatMap(({ file, code, status }) => {
    const owner = ownerOf(file);
    const declared = common[code] ?? declarations.get(owner)?.[code];
    if (declared === undefined) {
      const where =
        owner === 'common' ? 'common.problems.ts' : `neither in ${owner}.problems.ts nor in common.problems.ts`;
      return [`${relative(SRC, file)}: ${code} is declared ${owner === 'common' ? 'not in ' : ''}${where}`];
    }
    return declared === status ? [] : [`${relative(SRC, file)}: ${code} is thrown as ${status}, declared ${declared}`];
  });
}

describe('problem codes', () => {
  const files = sourceFiles(SRC);
  // Every declaration, loaded as the app loads it (each module's problems file).
  for (const file of files.filter((f) => f.endsWith('.problems.ts'))) jest.requireActual(file);
  const declarations = declaredProblems();
  const sources = files.filter((f) => !f.endsWith('.problems.ts')).map((f) => [f, readFileSync(f, 'utf8')] as const);
  const thrown = sources.flatMap(([f, text]) => thrownIn(f, text));

  it('finds the codes the source throws (the walk sees what it must)', () => {
    const codes = new Set(thrown.map((t) => t.code));
    for (const code of ['out_of_stock', 'transition_forbidden', 'deletion_not_found', 'token_expired', 'last_key']) {
      expect(codes).toContain(code);
    }
  });

  it("declares every code the source throws, in the thrower's module (or the shared list), with its status", () => {
    expect(undeclared(thrown, declarations)).toEqual([]);
  });

  it('fails on a code no declaration has, and on a status other than the declared one', () => {
    const file = join(SRC, 'orders', 'orders.service.ts');
    const text =
      "throw new ConflictProblem('no_such_code', 'x'); throw new NotFoundProblem('Order', 'too_many_pending_orders');" +
      " throw new ConflictProblem('email_taken', 'a users code, not an orders one');";
    expect(undeclared(thrownIn(file, text), declarations).sort()).toEqual([
      'orders/orders.service.ts: email_taken is declared neither in orders.problems.ts nor in common.problems.ts',
      'orders/orders.service.ts: no_such_code is declared neither in orders.problems.ts nor in common.problems.ts',
      'orders/orders.service.ts: too_many_pending_orders is thrown as 404, declared 409',
    ]);
  });

  it('declares no code that its module never answers, and none twice (a module does not repeat a shared one)', () => {
    const stale: string[] = [];
    const common = declarations.get('common') ?? {};
    for (const [module, codes] of declarations) {
      const text = sources
        .filter(([f]) => ownerOf(f) === module)
        .map(([, t]) => t)
        .join('\n');
      for (const code of Object.keys(codes)) {
        if (module !== 'common' && code in common) stale.push(`${module}: ${code} is a shared code`);
        else if (!text.includes(`'${code}'`)) stale.push(`${module}: ${code} is declared but never answered`);
      }
    }
    expect(stale).toEqual([]);
  });

  it("puts each module's declaration on its Nest module, where the document finds it (@AnswersProblems)", () => {
    const missing: string[] = [];
    for (const module of declarations.keys()) {
      if (module === 'common') continue;
      const constant = `${module.toUpperCase().replace(/-/g, '_')}_PROBLEMS`;
      const moduleFile = readFileSync(join(SRC, module, `${module}.module.ts`), 'utf8');
      if (!moduleFile.includes(`@AnswersProblems(${constant})`)) missing.push(module);
    }
    expect(missing).toEqual([]);
  });
});
