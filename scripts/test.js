#!/usr/bin/env node
// `npm test`: the whole suite in phases, each saying what it does and how long it took
// (docs/testing.md). The static checks run beside jest at low priority (each is mostly one core,
// and jest leaves a core idle while it waits on PostgreSQL); a failed check stops the run. With
// no arguments jest runs the e2e files in groups, the fast-paths-off set among them; arguments
// go to jest (`npm test -- test/foundation`) and run files as themselves. TEST_GROUPS=0 runs
// every file as itself, and then the fast-paths-off set again after jest.
'use strict';
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/**
 * Runs a command; its output is shown live (`live`) or kept and shown only if it fails.
 * `niceness` lowers its priority. Answers { done: Promise<boolean>, stop() }.
 */
function start(label, command, args, { live = false, env = {}, niceness = 0 } = {}) {
  const since = Date.now();
  const [cmd, argv] = niceness > 0 ? ['nice', ['-n', String(niceness), command, ...args]] : [command, args];
  const child = spawn(cmd, argv, {
    cwd: ROOT,
    stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    detached: true,
  });
  let output = '';
  if (!live) {
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
  }
  let stopped = false;
  const done = new Promise((resolve) => {
    child.on('close', (code) => {
      const ok = code === 0;
      if (!stopped) {
        process.stdout.write(`  ${ok ? 'ok    ' : 'FAILED'} ${label} (${seconds(since)})\n`);
        if (!ok && output) process.stdout.write(`${output.trimEnd()}\n`);
      } else process.stdout.write(`  stopped ${label} (${seconds(since)})\n`);
      resolve(ok);
    });
  });
  const stop = () => {
    stopped = true;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  running.add(stop);
  void done.then(() => running.delete(stop));
  return { done, stop };
}

/** Each command runs in a process group of its own (so a stop reaches jest's workers): Ctrl-C ends them all. */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const stop of running) stop();
    process.exit(130);
  });
}

const run = (label, command, args, options) => start(label, command, args, options).done;

function phase(n, text) {
  process.stdout.write(`\n[${n}/5] ${text}\n`);
}

async function main() {
  phase(1, 'Chromium for the browser tests (Swagger UI): checked, installed from Debian when missing');
  if (!(await run('chromium', 'bash', [join(ROOT, 'scripts/ensure-chromium.sh')], { live: true }))) return 1;

  phase(2, 'TypeScript SDK generated from the committed OpenAPI document and compiled');
  if (!(await run('sdk:build', 'npm', ['run', '-s', 'sdk:build']))) return 1;

  const args = process.argv.slice(2);
  const grouped = args.length === 0 && process.env.TEST_GROUPS !== '0';
  phase(3, 'Static checks beside the tests, at low priority: formatting (prettier), lint (eslint), types (tsc)');
  const checks = [
    start('format (prettier --check .)', bin('prettier'), ['--check', '.', '--log-level', 'warn'], { niceness: 10 }),
    start('lint (eslint . --max-warnings 0)', bin('eslint'), ['.', '--max-warnings', '0'], { niceness: 10 }),
    start('types (tsc --noEmit)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit'], { niceness: 10 }),
  ];

  phase(
    4,
    `Unit and end-to-end tests (jest) against real PostgreSQL${grouped ? ': e2e files in groups, the fast-paths-off set among them' : ''}`,
  );
  const jest = start('jest', bin('jest'), args, { live: true, env: { TEST_GROUPS: grouped ? '1' : '0' } });
  // A failed static check ends the run at once: the tests' answer would not change the verdict.
  const checked = Promise.all(
    checks.map((c) =>
      c.done.then((ok) => {
        if (!ok) jest.stop();
        return ok;
      }),
    ),
  );
  let ok = await jest.done;
  const staticOk = (await checked).every(Boolean);
  ok = ok && staticOk;

  phase(5, 'The contract and a set of e2e files again with the fast paths off (FAST_PATHS=false)');
  if (grouped) process.stdout.write('  done in phase 4: groups of their own ran them with FAST_PATHS=false\n');
  else if (args.length > 0) process.stdout.write('  skipped: jest was given arguments\n');
  else if (!ok) process.stdout.write('  skipped: the run above failed\n');
  else
    ok = await run('jest, fast paths off', bin('jest'), FAST_PATHS_OFF, {
      env: { FAST_PATHS: 'false', TEST_GROUPS: '0' },
    });
  process.stdout.write(`\nnpm test: ${ok ? 'passed' : 'failed'} in ${seconds(started)}\n`);
  return ok ? 0 : 1;
}

const { FAST_PATHS_OFF } = require('../test/support/groups');

main().then((code) => process.exit(code));
