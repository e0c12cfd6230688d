'use strict';
// The whole run's e2e files in groups (docs/testing.md, "Groups"). Jest gives each test file a
// module registry of its own, so each file loads the server's ~2,000 modules again (about two
// CPU-seconds); a group is one test file that requires several e2e files of one folder, each
// inside a describe named after it, so they share one registry and one load. Each file keeps its
// own hooks, app and fixtures: it runs as it would alone, only the modules are loaded once.
// `npm test` with no arguments runs the groups; a run of named files (`npm test -- test/content`,
// `npx jest …`) runs the files themselves.
const { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { basename, dirname, join, relative } = require('node:path');

const DIR = ['test', '.groups'];
/** A group holds at most this much test source (a rough measure of its run time) … */
const MAX_BYTES = 60_000;
/** … and at most this many files. */
const MAX_FILES = 6;
const GROUP = /\.e2e-group\.js$/;
/**
 * A file that changes something every app of its module registry reads, at load (it defines
 * events, which every app's document would then list), says so in its first comment: it gets a
 * group, and so a registry, of its own.
 */
const OWN_REGISTRY = /^\/\*\*[^]*?@ownRegistry/;
/**
 * A file whose time is mostly work of its own, not source to load (it runs another jest and tsc
 * on a copy of the project), says `@runsLong` in its first comment: it gets a group of its own,
 * and the sequencer starts it first, so the run does not end on it.
 */
const RUNS_LONG = /^\/\*\*[^]*?@runsLong/;

function e2eFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name.startsWith('.') || e.name === 'support' ? [] : e2eFiles(path);
      return e.name.endsWith('.e2e-spec.ts') ? [path] : [];
    })
    .sort();
}

/**
 * The files that run a second time with the fast paths off (docs/testing.md, "Fast paths off"):
 * the contract, one whole module and tokens in paths. In groups, they are groups of their own
 * that switch FAST_PATHS off for the apps they start; run as files, `npm test` runs them again.
 */
const FAST_PATHS_OFF = ['test/foundation/openapi-contract', 'test/content/', 'test/newsletter/token-spellings'];

/** Writes the groups of `root`'s e2e files (replacing any earlier ones); answers their folder. */
function writeGroups(root) {
  const out = join(root, ...DIR);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const byFolder = new Map();
  for (const file of e2eFiles(join(root, 'test'))) {
    const folder = relative(join(root, 'test'), dirname(file)) || 'test';
    if (!byFolder.has(folder)) byFolder.set(folder, []);
    byFolder.get(folder).push(file);
  }
  for (const [folder, files] of byFolder) {
    const chunks = [];
    let chunk = null;
    for (const file of files) {
      const bytes = statSync(file).size;
      const text = readFileSync(file, 'utf8');
      if (OWN_REGISTRY.test(text) || RUNS_LONG.test(text)) {
        chunks.push({ files: [file], bytes });
        chunk = null;
        continue;
      }
      if (!chunk || chunk.files.length >= MAX_FILES || (chunk.bytes + bytes > MAX_BYTES && chunk.files.length > 0)) {
        chunks.push((chunk = { files: [], bytes: 0 }));
      }
      chunk.files.push(file);
      chunk.bytes += bytes;
    }
    chunks.forEach((c, i) => writeGroup(root, out, `${folder.replace(/\//g, '-')}-${i + 1}`, c.files));
  }
  const off = e2eFiles(join(root, 'test')).filter((f) => FAST_PATHS_OFF.some((p) => relative(root, f).startsWith(p)));
  for (let i = 0; i * MAX_FILES < off.length; i++) {
    writeGroup(root, out, `fast-paths-off-${i + 1}`, off.slice(i * MAX_FILES, (i + 1) * MAX_FILES), true);
  }
  return out;
}

/**
 * One group file. With `fastPathsOff`, the apps its files start run with FAST_PATHS=false
 * (test/support/app.ts passes the variable on); the worker's environment is put back after it.
 */
function writeGroup(root, out, name, files, fastPathsOff = false) {
  const lines = files.map((file) => {
    const title = `${fastPathsOff ? 'fast paths off: ' : ''}${relative(root, file)}`;
    return `describe(${JSON.stringify(title)}, () => {\n  require(${JSON.stringify(relative(out, file))});\n});\n`;
  });
  const head = fastPathsOff
    ? 'const before = process.env.FAST_PATHS;\nprocess.env.FAST_PATHS = "false";\n' +
      'afterAll(() => {\n  if (before === undefined) delete process.env.FAST_PATHS;\n  else process.env.FAST_PATHS = before;\n});\n'
    : '';
  writeFileSync(
    join(out, `${name}.e2e-group.js`),
    `// Written by test/support/groups.js for this run: ${files.length} e2e files sharing one module registry` +
      `${fastPathsOff ? ', with the fast paths off' : ''}.\n${head}${lines.join('')}`,
  );
}

/** The e2e files a group requires (for the sequencer's estimate), or null for any other file. */
function membersOf(path) {
  if (!GROUP.test(path)) return null;
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => join(dirname(path), m[1]));
}

/** Whether `path` (a test file, or a group of them) is one that says `@runsLong`. */
function runsLong(path) {
  return (membersOf(path) ?? [path]).some((file) => RUNS_LONG.test(readFileSync(file, 'utf8')));
}

module.exports = {
  writeGroups,
  membersOf,
  runsLong,
  FAST_PATHS_OFF,
  GROUP_DIR: DIR.join('/'),
  isGroup: (p) => GROUP.test(basename(p)),
};
