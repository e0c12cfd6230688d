/**
 * The names of a module in every spelling the templates use. The templates are written for the
 * sample module "sample-things" (one "sample-thing"); rendering replaces each spelling of the
 * sample with the same spelling of the new module's name.
 */
export interface ModuleNames {
  /** `calendar-events`: folder, URL segment, permission group, events' module. */
  kebab: string;
  /** `calendar-event`: file names of its entity and DTOs. */
  kebabOne: string;
  /** `calendar_events`: the table. */
  snake: string;
  /** `calendar_event`: the events' prefix (`calendar_event.created`). */
  snakeOne: string;
  /** `CalendarEvents`, `CalendarEvent`: classes. */
  pascal: string;
  pascalOne: string;
  /** `calendarEvents`, `calendarEvent`: variables, the fixture's key. */
  camel: string;
  camelOne: string;
  /** `CALENDAR_EVENTS`, `CALENDAR_EVENT`: constants. */
  upper: string;
  upperOne: string;
  /** `Calendar events`, `Calendar event`: the tag, titles, messages. */
  title: string;
  titleOne: string;
  /** `calendar events`, `calendar event`: prose. */
  words: string;
  wordsOne: string;
}

export const KEBAB = /^[a-z][a-z0-9]*(-[a-z][a-z0-9]*)*$/;

/** `calendar-events` -> `calendar-event`; answers null where English needs telling (`--singular`). */
export function singularOf(kebab: string): string | null {
  if (/ies$/.test(kebab)) return kebab.replace(/ies$/, 'y');
  if (/(ss|x|ch|sh)es$/.test(kebab)) return kebab.replace(/es$/, '');
  if (/[^s]s$/.test(kebab)) return kebab.slice(0, -1);
  return null;
}

export function moduleNames(kebab: string, kebabOne: string): ModuleNames {
  const words = kebab.split('-');
  const wordsOne = kebabOne.split('-');
  const cap = (w: string) => w[0].toUpperCase() + w.slice(1);
  const pascal = (ws: string[]) => ws.map(cap).join('');
  const camel = (ws: string[]) => ws[0] + pascal(ws.slice(1));
  return {
    kebab,
    kebabOne,
    snake: words.join('_'),
    snakeOne: wordsOne.join('_'),
    pascal: pascal(words),
    pascalOne: pascal(wordsOne),
    camel: camel(words),
    camelOne: camel(wordsOne),
    upper: words.join('_').toUpperCase(),
    upperOne: wordsOne.join('_').toUpperCase(),
    title: cap(words.join(' ')),
    titleOne: cap(wordsOne.join(' ')),
    words: words.join(' '),
    wordsOne: wordsOne.join(' '),
  };
}

/** The sample the templates are written for. */
export const SAMPLE = moduleNames('sample-things', 'sample-thing');

/**
 * `text` with every spelling of the sample's name replaced by the module's, the longer spellings
 * first (`SampleThings` before `SampleThing`).
 */
export function rename(text: string, to: ModuleNames): string {
  const pairs = (Object.keys(SAMPLE) as Array<keyof ModuleNames>)
    .map((k) => [SAMPLE[k], to[k]] as const)
    .sort((x, y) => y[0].length - x[0].length);
  let out = '';
  for (let i = 0; i < text.length;) {
    const hit = pairs.find(([from]) => text.startsWith(from, i));
    out += hit ? hit[1] : text[i];
    i += hit ? hit[0].length : 1;
  }
  return out;
}
