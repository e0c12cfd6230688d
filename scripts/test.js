#!/usr/bin/env node
// `npm test`: the whole suite in five phases, each saying what it does and how long it took
// (docs/testing.md). The static checks run side by side (each is mostly one core); jest runs
// next, with its own progress, then a set of its files again with the fast paths off. Arguments
// go to jest (`npm test -- test/foundation`), and then the last phase is left out.
'use strict';
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Runs a command; its output is shown live (`live`) or kept and shown only if it fails. */
function run(label, command, args, { live = false, env = {} } = {}) {
  const since = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let output = '';
    if (!live) {
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
    }
    child.on('close', (code) => {
      const ok = code === 0;
      process.stdout.write(`  ${ok ? 'ok    ' : 'FAILED'} ${label} (${seconds(since)})\n`);
      if (!ok && output) process.stdout.write(`${output.trimEnd()}\n`);
      resolve(ok);
    });
  });
}

function phase(n, text) {
  process.stdout.write(`\n[${n}/5] ${text}\n`);
}

async function main() {
  phase(1, 'Chromium for the browser tests (Swagger UI): checked, installed from Debian when missing');
  if (!(await run('chromium', 'bash', [join(ROOT, 'scripts/ensure-chromium.sh')], { live: true }))) return 1;

  phase(2, 'TypeScript SDK generated from the committed OpenAPI document and compiled');
  if (!(await run('sdk:build', 'npm', ['run', '-s', 'sdk:build']))) return 1;

  phase(3, 'Static checks side by side: formatting (prettier), lint (eslint), types (tsc)');
  const checks = await Promise.all([
    run('format (prettier --check .)', bin('prettier'), ['--check', '.', '--log-level', 'warn']),
    run('lint (eslint . --max-warnings 0)', bin('eslint'), ['.', '--max-warnings', '0']),
    run('types (tsc --noEmit)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']),
  ]);
  if (checks.includes(false)) return 1;

  const args = process.argv.slice(2);
  // TEST_GROUPS=1 runs the e2e files in groups sharing one module registry (test/support/groups.js):
  // less CPU, but not yet the default: two grouped runs met failures the files alone never had.
  phase(
    4,
    `Unit and end-to-end tests (jest) against real PostgreSQL${process.env.TEST_GROUPS === '1' ? ', e2e files in groups' : ''}`,
  );
  let ok = await run('jest', bin('jest'), args, { live: true });

  phase(5, 'The contract and a set of e2e files again with the fast paths off (FAST_PATHS=false)');
  if (args.length > 0) process.stdout.write('  skipped: jest was given arguments\n');
  else if (!ok) process.stdout.write('  skipped: the run above failed\n');
  else
    ok = await run('jest, fast paths off', bin('jest'), FAST_PATHS_OFF, {
      env: { FAST_PATHS: 'false', TEST_GROUPS: '0' },
    });
  process.stdout.write(`\nnpm test: ${ok ? 'passed' : 'failed'} in ${seconds(started)}\n`);
  return ok ? 0 : 1;
}

/**
 * Run again with FAST_PATHS=false (docs/testing.md, "Fast paths off"): the contract, one whole
 * module (content: lists, filters, cursors, gets by id and slug, every operation through the
 * generated client) and tokens in paths, whose inputs never repeat. About 45-55 s.
 */
const FAST_PATHS_OFF = ['test/foundation/openapi-contract', 'test/content/', 'test/newsletter/token-spellings'];

main().then((code) => process.exit(code));
