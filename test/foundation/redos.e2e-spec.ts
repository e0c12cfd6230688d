import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { FoundRegex, regexesOfFile, serverRegexes } from '../support/regex-audit';

/**
 * ReDoS audit of every regular expression in src/ (docs/security.md, "Regular expressions"):
 * recheck (its pure JavaScript build: no native binary, no JVM, no network) looks for
 * exponential and polynomial (quadratic and worse) backtracking; a vulnerable pattern fails
 * here with its file:line and an attack string. Nothing is cached between runs.
 */
const ROOT = join(__dirname, '..', '..');

/**
 * Patterns that stay although the checker flags them (or cannot check them), each with why no
 * client can make it slow. Keyed by file and pattern (the argument as written when dynamic), not
 * by line. An entry that no longer matches a flagged pattern fails the last test: remove it.
 */
const ALLOWED: { file: string; source: string; reason: string }[] = [
  {
    file: 'src/common/outbox/outbox-relay.service.ts',
    source: "`^${pattern .split('*') .map((p) => p.replace(/[.+?^${}()|[\\]\\\\]/g, '\\\\$&')) .join('.*')}$`",
    reason:
      "built from the subscription patterns modules pass to OutboxRelay.subscribe in code ('content.*'); " +
      'escaped, only * becomes .*; matched against event names declared in code, never client input',
  },
];

interface Verdict {
  regex: FoundRegex;
  status: 'safe' | 'vulnerable' | 'unknown' | 'dynamic';
  detail: string;
}

/**
 * recheck runs in plain Node child processes: its compiled Scala.js runs about ten times slower
 * inside jest's module sandbox (over 3 minutes for src/ instead of 15 s). Two processes share
 * the patterns (the machine's cores).
 */
const CHECKER = `
process.env.RECHECK_BACKEND = 'pure';
const { check } = require('recheck');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', async () => {
  const out = [];
  for (const { source, flags } of JSON.parse(input)) {
    const d = await check(source, flags, { randomSeed: 1, timeout: 10000 });
    out.push({ status: d.status, complexity: d.complexity?.type, attack: d.attack?.pattern, error: d.error?.kind });
  }
  process.stdout.write(JSON.stringify(out));
});`;

interface Diagnostic {
  status: 'safe' | 'vulnerable' | 'unknown';
  complexity?: string;
  attack?: string;
  error?: string;
}

function runChecker(patterns: { source: string; flags: string }[]): Promise<Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHECKER], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Diagnostic[]) : reject(new Error(`recheck exited with ${code}`)),
    );
    child.stdin.end(JSON.stringify(patterns));
  });
}

async function judge(regexes: FoundRegex[], processes = 2): Promise<Verdict[]> {
  const checked = regexes.filter((r) => !r.dynamic);
  const shares = Array.from({ length: processes }, (_, i) => checked.filter((_r, j) => j % processes === i));
  const results = await Promise.all(shares.map((share) => runChecker(share)));
  const diagnostics = new Map<FoundRegex, Diagnostic>();
  shares.forEach((share, i) => share.forEach((r, j) => diagnostics.set(r, results[i][j])));
  return regexes.map((regex) => {
    const d = diagnostics.get(regex);
    if (!d) return { regex, status: 'dynamic', detail: 'built at run time: cannot be checked' };
    if (d.status === 'safe') return { regex, status: 'safe', detail: d.complexity ?? '' };
    if (d.status === 'vulnerable')
      return { regex, status: 'vulnerable', detail: `${d.complexity} backtracking, attack ${d.attack}` };
    return { regex, status: 'unknown', detail: `not checked: ${d.error}` };
  });
}

const isAllowed = (v: Verdict) => ALLOWED.some((a) => a.file === v.regex.file && a.source === v.regex.source);

describe('regular expressions (ReDoS)', () => {
  let verdicts: Verdict[];

  beforeAll(async () => {
    verdicts = await judge(serverRegexes(ROOT));
  }, 120_000);

  it('finds the regexes of src/ (literals and RegExp constructors)', () => {
    expect(verdicts.length).toBeGreaterThan(100);
    const keys = verdicts.find(
      (v) => v.regex.file === 'src/media/media-keys.ts' && v.regex.source.startsWith('^[a-z0-9]+'),
    );
    // A template of const strings is resolved and checked, not left dynamic.
    expect(keys).toMatchObject({ status: 'safe', regex: { dynamic: false } });
  });

  it('has no vulnerable, uncheckable or dynamic pattern outside the allowlist', () => {
    const bad = verdicts
      .filter((v) => v.status !== 'safe' && !isAllowed(v))
      .map((v) => `${v.regex.file}:${v.regex.line} /${v.regex.source}/${v.regex.flags}: ${v.status}, ${v.detail}`);
    expect(bad).toEqual([]);
  });

  it('has a reason for each allowlist entry and no stale entry', () => {
    for (const a of ALLOWED) expect(a.reason.length).toBeGreaterThan(40);
    const stale = ALLOWED.filter(
      (a) => !verdicts.some((v) => v.status !== 'safe' && v.regex.file === a.file && v.regex.source === a.source),
    ).map((a) => `${a.file} ${a.source}`);
    expect(stale).toEqual([]);
  });

  it('flags quadratic and exponential patterns, and finds them in source text (self-test)', async () => {
    const text = [
      'const a = /a*a*b/;',
      "const b = new RegExp('(<a\\\\b[^>]*?\\\\bhref\\\\s*=\\\\s*)([\"\\'])(.*?)\\\\2', 'gis');",
      'const c = /^(a+)+$/;',
      'const d = /^[a-z]+$/;',
      'const e = new RegExp(input);',
    ].join('\n');
    const found = regexesOfFile('src/x.ts', text);
    expect(found.map((r) => [r.line, r.source, r.flags, r.dynamic])).toEqual([
      [1, 'a*a*b', '', false],
      [2, '(<a\\b[^>]*?\\bhref\\s*=\\s*)(["\'])(.*?)\\2', 'gis', false],
      [3, '^(a+)+$', '', false],
      [4, '^[a-z]+$', '', false],
      [5, 'input', '', true],
    ]);
    const judged = await judge(found, 1);
    expect(judged.map((v) => v.status)).toEqual(['vulnerable', 'vulnerable', 'vulnerable', 'safe', 'dynamic']);
    expect(judged[0].detail).toMatch(/^polynomial backtracking, attack /);
    expect(judged[2].detail).toMatch(/^exponential backtracking, attack /);
  }, 60_000);
});
