import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ModuleNames, rename } from './names';

/**
 * `text` with its conditional blocks kept or dropped: lines between `// @if <flag>` (or
 * `// @if !<flag>`; `<!-- @if … -->` in Markdown) and `// @end` stay only when the flag says so;
 * the marker lines go.
 */
export function select(text: string, flags: Record<string, boolean>): string {
  const out: string[] = [];
  const keep: boolean[] = [];
  for (const line of text.split('\n')) {
    const open = /^\s*(?:\/\/|<!--) @if (!?)([a-z]+)/.exec(line);
    if (open) {
      const flag = flags[open[2]] ?? false;
      keep.push(open[1] === '!' ? !flag : flag);
      continue;
    }
    if (/^\s*(?:\/\/|<!--) @end/.test(line)) {
      if (keep.pop() === undefined) throw new Error('an @end without an @if');
      continue;
    }
    if (keep.every(Boolean)) out.push(line);
  }
  if (keep.length) throw new Error('an @if without its @end');
  return out.join('\n');
}

/**
 * Every `*.tpl` under `dir` that `flags` select, as its path relative to `dir` without `.tpl`: a
 * template whose first line is `// @file <flag>` is written only with that flag.
 */
export function templateFiles(dir: string, flags: Record<string, boolean>): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.tpl'))
    .map((e) => relative(dir, join(e.parentPath, e.name)).slice(0, -'.tpl'.length))
    .filter((file) => {
      const only = /^\/\/ @file ([a-z]+)\n/.exec(readFileSync(join(dir, `${file}.tpl`), 'utf8'));
      return !only || flags[only[1]];
    })
    .sort();
}

/** Reads a template, keeps what `flags` select and renames it for `names`. */
export function renderTemplate(dir: string, file: string, names: ModuleNames, flags: Record<string, boolean>): string {
  const text = readFileSync(join(dir, `${file}.tpl`), 'utf8').replace(/^\/\/ @file [a-z]+\n/, '');
  return rename(select(text, flags), names);
}

export function writeNew(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { flag: 'wx' });
}
