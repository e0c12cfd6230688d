import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
/** Beside node_modules' other tool caches, so the compiled files resolve packages as src/ does. */
const CACHE = join(ROOT, 'node_modules', '.cache', 'sitebase-entries');
/** Where the run's compiled copy of src/ is (set by the global setup, read by the workers). */
export const COMPILED_ENTRIES_ENV = 'SITEBASE_TEST_COMPILED_DIR';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Compiles src/ to JavaScript once for the whole run, for the tests that start the server or
 * the key command as processes of their own (the cluster, several instances, start-up errors).
 * Each of them used to load src/ through ts-node, which compiled every file again in each
 * process (about 9 CPU-seconds apiece, 16 processes a run). The same transpile as ts-node's
 * (TypeScript's, file by file, no type check: tsc checks the types in its own phase), kept
 * under a hash of the sources, so a run with unchanged sources compiles nothing.
 */
export function compileEntries(): string {
  const files = sources(join(ROOT, 'src')).sort();
  const hash = createHash('sha1')
    .update(ts.version)
    .update(readFileSync(join(ROOT, 'tsconfig.json')));
  for (const file of files) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  const out = join(CACHE, hash.digest('hex').slice(0, 16));
  if (existsSync(join(out, 'complete'))) return out;

  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT);
  const compilerOptions: ts.CompilerOptions = {
    ...options,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    sourceMap: false,
    inlineSourceMap: false,
    incremental: false,
    declaration: false,
  };
  // Written beside, then moved in place: a run stopped half-way leaves nothing that looks complete.
  const partial = `${out}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  for (const file of files) {
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file });
    const target = join(partial, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  writeFileSync(join(partial, 'complete'), '');
  // Older compiled copies are of sources that changed since: only the newest is kept.
  if (existsSync(CACHE))
    for (const old of readdirSync(CACHE)) if (!old.endsWith('.partial')) rmSync(join(CACHE, old), { recursive: true });
  try {
    renameSync(partial, out);
  } catch {
    // Another run made the same copy first: it is the same output.
    rmSync(partial, { recursive: true, force: true });
  }
  return out;
}

/**
 * The command that runs one of the server's entry points (`src/main.ts`, `src/cli/key.ts`) as
 * a process of its own, from the run's compiled copy of src/.
 */
export function entryCommand(entry: string): { command: string; args: string[] } {
  const dir = process.env[COMPILED_ENTRIES_ENV];
  if (!dir)
    throw new Error(
      `${COMPILED_ENTRIES_ENV} is not set: the jest global setup compiles src/ for the run (unless SITEBASE_TEST_NO_PROCESSES=1)`,
    );
  return { command: process.execPath, args: [join(dir, entry.replace(/\.ts$/, '.js'))] };
}
