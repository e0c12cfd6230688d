#!/usr/bin/env node
// `npm run build` and `npm start`: compiles src/ into dist/ with tsc's build mode, type-checked.
// Only what changed since the last build is compiled again (tsc's record of it is
// dist/.tsbuildinfo, inside dist/ so that deleting dist/, as `nest build` does, also forgets it);
// when nothing changed the check takes a fraction of a second. Outputs whose source is gone are
// deleted, and a missing output forces a full build (tsc would not notice it).
'use strict';
const { existsSync, readdirSync, rmdirSync, rmSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const ts = require('typescript');

const ROOT = join(__dirname, '..');
const CONFIG = join(ROOT, 'tsconfig.build.json');
const started = process.hrtime.bigint();
const seconds = () => (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1);

let lineOpen = false;
/**
 * The one line the build prints, on stderr (stdout stays the program's: `npm run -s key` prints
 * only the key there); diagnostics, if any, start on a line of their own.
 */
function say(text, end = false) {
  process.stderr.write(text + (end ? '\n' : ''));
  lineOpen = !end;
}
function breakLine() {
  if (lineOpen) process.stderr.write('\n');
  lineOpen = false;
}

const formatHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => ts.sys.newLine,
};
const reportDiagnostic = (d) => {
  breakLine();
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext([d], formatHost));
};

const parsed = ts.getParsedCommandLineOfConfigFile(CONFIG, undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: reportDiagnostic,
});
if (!parsed) process.exit(1);
const outDir = parsed.options.outDir;
const buildInfo = parsed.options.tsBuildInfoFile;
if (!outDir || !buildInfo || !relative(outDir, buildInfo).startsWith('.tsbuildinfo'))
  throw new Error('tsconfig.build.json must set outDir and a tsBuildInfoFile inside it');

// What this build should leave in dist/: the outputs of every current source.
const expected = new Set();
const sourceOf = new Map();
for (const file of parsed.fileNames)
  for (const out of ts.getOutputFileNames(parsed, file, false)) {
    expected.add(out);
    sourceOf.set(out, file);
  }

/** Deletes compiled files whose source no longer exists (a deleted or renamed .ts). */
function removeStale(dir) {
  if (!existsSync(dir)) return 0;
  let removed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += removeStale(path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (/\.js(\.map)?$/.test(entry.name) && !expected.has(path)) {
      rmSync(path);
      if (entry.name.endsWith('.js')) removed++;
    }
  }
  return removed;
}

const first = !existsSync(buildInfo);
say(`Building dist/ (tsc, only what changed since the last build)… `);
const stale = removeStale(outDir);
// An output deleted since the last build (its source is older than the record): tsc would
// consider it up to date, so the record goes and everything is compiled. A new source's output
// is missing too, and compiled as a change.
const builtAt = first ? 0 : statSync(buildInfo).mtimeMs;
const missing = [...expected].filter(
  (f) => f.endsWith('.js') && !existsSync(f) && statSync(sourceOf.get(f)).mtimeMs <= builtAt,
).length;
if (missing > 0) rmSync(buildInfo);

let emitted = 0;
const system = {
  ...ts.sys,
  writeFile(path, data, bom) {
    if (path.endsWith('.js')) emitted++;
    ts.sys.writeFile(path, data, bom);
  },
};
const host = ts.createSolutionBuilderHost(
  system,
  undefined,
  reportDiagnostic,
  () => undefined,
  () => undefined,
);
const status = ts.createSolutionBuilder(host, [CONFIG], {}).build();
if (status !== ts.ExitStatus.Success) {
  breakLine();
  process.stderr.write(`Build failed (${seconds()} s): fix the errors above.\n`);
  process.exit(1);
}
const why = first
  ? 'first build'
  : missing > 0
    ? `${missing === 1 ? 'an output was' : `${missing} outputs were`} missing: everything compiled`
    : stale > 0
      ? `${stale} outputs of deleted sources removed`
      : '';
const what = emitted === 0 ? 'up to date' : `${emitted} file${emitted === 1 ? '' : 's'} compiled`;
say(`${what}${why ? ` (${why})` : ''} in ${seconds()} s`, true);
