import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_CLASSES, CONFIG_KEYS } from './configs';
import { settingsOf } from './setting';

describe('.env.example', () => {
  const text = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8');
  const documented = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^#?\s*([A-Z][A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) documented.set(m[1], m[2]);
  }

  it.each(CONFIG_KEYS)('documents %s', (key) => {
    expect(documented.has(key) ? key : `${key} is missing from .env.example`).toBe(key);
  });

  it('shows the real defaults, in a form the setting reads (BODY_LIMIT=1mb)', () => {
    const types = Object.values(CONFIG_CLASSES);
    const defaults = Object.assign({}, ...types.map((type) => new type())) as Record<string, unknown>;
    const settings = new Map(types.flatMap((type) => [...settingsOf(type)]));
    for (const [key, value] of documented) {
      if (defaults[key] === undefined || value === '') continue;
      expect({ [key]: settings.get(key)?.kind.parse(value) }).toEqual({ [key]: defaults[key] });
    }
  });
});
