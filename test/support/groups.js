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

function e2eFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name.startsWith('.') || e.name === 'support' ? [] : e2eFiles(path);
      return e.name.endsWith('.e2e-spec.ts') ? [path] : [];
    })
    .sort();
}

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
      if (OWN_REGISTRY.test(readFileSync(file, 'utf8'))) {
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
    chunks.forEach((c, i) => {
      const lines = c.files.map((file) => {
        const name = relative(root, file);
        return `describe(${JSON.stringify(name)}, () => {\n  require(${JSON.stringify(relative(out, file))});\n});\n`;
      });
      writeFileSync(
        join(out, `${folder.replace(/\//g, '-')}-${i + 1}.e2e-group.js`),
        `// Written by test/support/groups.js for this run: ${c.files.length} e2e files sharing one module registry.\n${lines.join('')}`,
      );
    });
  }
  return out;
}

/** The e2e files a group requires (for the sequencer's estimate), or null for any other file. */
function membersOf(path) {
  if (!GROUP.test(path)) return null;
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => join(dirname(path), m[1]));
}

module.exports = { writeGroups, membersOf, GROUP_DIR: DIR.join('/'), isGroup: (p) => GROUP.test(basename(p)) };
