import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INSTALL_NODE, unsupportedNode } from './supported-node';

const ROOT = join(__dirname, '..');

describe('unsupportedNode (issue 47, row 5)', () => {
  it('accepts what package.json "engines" accepts', () => {
    for (const v of ['22.13.0', 'v22.23.3', '22.99.1', '24.11.0', '24.12.3', '25.0.0', '26.1.0'])
      expect([v, unsupportedNode(v)]).toEqual([v, null]);
  });

  it('refuses the rest in one line naming the version to install', () => {
    for (const v of ['20.19.0', 'v18.20.4', '22.12.0', '23.11.0', '24.10.0', '21.7.3'])
      expect(unsupportedNode(v)).toBe(
        `Sitebase needs Node 22.13+ or 24.11+ (package.json "engines"); this is Node ${v.replace(/^v/, '')}. Install Node 22.23.3 (the version in .nvmrc; with nvm: nvm install) and run it again.`,
      );
  });

  it('holds the same rule as package.json and .nvmrc', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('^22.13.0 || >=24.11.0');
    const nvmrc = readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim();
    expect(INSTALL_NODE).toBe(nvmrc);
    expect(unsupportedNode(nvmrc)).toBeNull();
  });
});
