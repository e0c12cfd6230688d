import type { SettingKind } from './setting-kinds';

/** When an unset setting is wrong all the same: `when` the other settings say so. */
export interface RequiredWhen<C> {
  /** The settings class `when` reads, when it is not the setting's own (another module's). */
  of?: new () => C;
  when(config: C): boolean;
  /** The rest of "required when …", e.g. `MEDIA_STORAGE=s3`. */
  because: string;
}

interface Declared {
  kind: SettingKind<unknown>;
  required?: RequiredWhen<never>;
}

const DECLARED = new WeakMap<object, Map<string, Declared>>();

/**
 * Declares a setting: the kind reads its environment variable (type, bounds and the words of its
 * error all come from it), `required` makes an unset one wrong when other settings need it. The
 * property's type must be the kind's.
 */
export function Setting<T, C = never>(kind: SettingKind<T>, required?: RequiredWhen<C>) {
  return <K extends string>(prototype: { [P in K]?: T }, key: K): void => {
    const owner = prototype.constructor;
    const declared = DECLARED.get(owner) ?? new Map<string, Declared>();
    // Stored without its class's type: missingSettings hands `when` the settings it names.
    declared.set(key, { kind, required: required as RequiredWhen<never> | undefined });
    DECLARED.set(owner, declared);
  };
}

/**
 * The settings of `type`: every property its instances have (a default) or that is declared
 * (optional ones). A property without @Setting is a mistake of the code, found at load.
 */
export function settingsOf(type: new () => object): Map<string, Declared> {
  const declared = DECLARED.get(type) ?? new Map<string, Declared>();
  const missing = Object.keys(new type()).filter((key) => !declared.has(key));
  if (missing.length > 0)
    throw new Error(`${type.name}: ${missing.join(', ')} without @Setting (src/config/setting.ts)`);
  return declared;
}

/** A wrong value shown in an error: quoted, escaped (one line stays one line), cut when long. */
function shown(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

/**
 * Reads every setting of `target` from `env` onto it (an unset or empty variable keeps the
 * default) and returns one line per wrong one: the variable, the value it was given (a secret
 * named, never shown) and what it accepts. Empty when all are right.
 */
export function readSettings<C extends object>(target: C, env: Record<string, string | undefined>): string[] {
  const values = target as Record<string, unknown>;
  const lines: string[] = [];
  for (const [key, { kind }] of settingsOf(target.constructor as new () => C)) {
    const given = env[key];
    if (given === undefined || given === '') continue;
    const value = given.trim() === '' ? undefined : kind.parse(given.trim());
    if (value === undefined)
      lines.push(`Invalid setting ${key}=${kind.secret ? '(value hidden)' : shown(given)}: ${kind.accepts}.`);
    else values[key] = value;
  }
  return lines;
}

/**
 * One line per setting of `target` that `env` leaves unset although other settings need it;
 * `configOf` finds the settings a requirement reads (read already: its own class's, or another's).
 */
export function missingSettings<C extends object>(
  target: C,
  env: Record<string, string | undefined>,
  configOf: (type: new () => object) => object,
): string[] {
  const lines: string[] = [];
  for (const [key, { kind, required }] of settingsOf(target.constructor as new () => C)) {
    if (!required || (env[key] !== undefined && env[key] !== '')) continue;
    const rule = required as RequiredWhen<object>;
    if (rule.when(rule.of ? configOf(rule.of) : target))
      lines.push(`Missing setting ${key}: it is required when ${required.because}; ${kind.accepts}.`);
  }
  return lines;
}
