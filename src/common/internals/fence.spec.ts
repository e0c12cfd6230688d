import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fastPathOn, Fence, fenceHolds, fenceWarning, installedVersion, versionsFound } from './fence';
import { checkReadFences, FENCES } from './fences';
import { NEST_METADATA } from './nest-metadata';

const root = join(__dirname, '..', '..', '..');
const lockVersion = (pkg: string) =>
  (JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

const FENCE: Fence = {
  name: 'A probe',
  kind: 'fast path',
  writtenFor: { 'class-validator': '0.15.1', nodemailer: '10.6.1' },
};

describe('fences', () => {
  it('read the version a package.json says, exports or not', () => {
    for (const pkg of ['@nestjs/common', 'class-validator', 'class-transformer', 'nodemailer'])
      expect(installedVersion(pkg)).toBe(lockVersion(pkg));
    expect(installedVersion('no-such-package-here')).toBeUndefined();
  });

  // A dependency upgrade fails here until someone reads the fenced code against the new version
  // and moves its fence (the server would only warn and step aside).
  it.each(FENCES.map((f) => [f.name, f]))('%s holds with the packages installed', (_name, fence) => {
    expect(versionsFound(fence)).toEqual({});
  });

  it('names what differs, warns once, and turns its fast path off', () => {
    const read = (pkg: string) => (pkg === 'nodemailer' ? '11.0.0' : FENCE.writtenFor[pkg]);
    expect(versionsFound(FENCE, read)).toEqual({ nodemailer: '11.0.0' });
    const warn = jest.fn();
    expect(fenceHolds(FENCE, warn, read)).toBe(false);
    expect(fastPathOn(FENCE, { FAST_PATHS: true }, warn, read)).toBe(false);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(fastPathOn(FENCE, { FAST_PATHS: true }, warn, (pkg) => FENCE.writtenFor[pkg])).toBe(true);
    expect(fastPathOn(FENCE, { FAST_PATHS: false }, warn, (pkg) => FENCE.writtenFor[pkg])).toBe(false);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('logs one warning line that says what steps aside and why', () => {
    const lines: Array<[object, string]> = [];
    const warn = fenceWarning({ warn: (details, message) => lines.push([details, message]) });
    fenceHolds(FENCE, warn, (pkg) => (pkg === 'nodemailer' ? undefined : '0.16.0'));
    expect(lines).toEqual([
      [
        {
          fence: 'A probe',
          writtenFor: FENCE.writtenFor,
          found: { 'class-validator': '0.16.0', nodemailer: undefined },
        },
        'A probe was written for class-validator 0.15.1, nodemailer 10.6.1 and finds class-validator 0.16.0, ' +
          'nodemailer (not installed): it steps aside and the plain path runs (docs/performance.md, "Fenced fast paths")',
      ],
    ]);
  });

  it('says a wrapper steps aside and what goes unrecorded', () => {
    const lines: string[] = [];
    const warn = fenceWarning({ warn: (_details, message) => lines.push(message) });
    fenceHolds({ ...FENCE, kind: 'wrapper' }, warn, () => '0.0.1');
    expect(lines).toEqual([
      'A probe was written for class-validator 0.15.1, nodemailer 10.6.1 and finds class-validator 0.0.1, ' +
        'nodemailer 0.0.1: it steps aside and the library runs unwrapped (what it observes goes unrecorded) ' +
        '(docs/performance.md, "Fenced fast paths")',
    ]);
  });

  it('checks the fences around reads at boot: they warn, with nothing to step aside to', () => {
    const lines: string[] = [];
    const warn = fenceWarning({ warn: (_details, message) => lines.push(message) });
    checkReadFences(warn, (pkg) => (pkg === '@nestjs/common' ? '13.0.0' : installedVersion(pkg)));
    expect(lines).toEqual([
      `${NEST_METADATA.name} was written for @nestjs/common 12.5.1 and finds @nestjs/common 13.0.0: what it ` +
        'reads may be shaped otherwise; run the contract tests (docs/performance.md, "Fenced fast paths")',
    ]);
    checkReadFences(warn);
    expect(lines).toHaveLength(1);
  });
});
