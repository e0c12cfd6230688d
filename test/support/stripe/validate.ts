/**
 * A request's decoded form parameters checked against the operation's schema from Stripe's
 * spec, the way Stripe checks them: form strings coerced by the schema's types (integer,
 * number, boolean `true`/`false`), nested objects and arrays walked fully, `anyOf` branches
 * tried in turn (Stripe's `""` that unsets a field is one), unknown and missing parameters
 * named with Stripe's bracketed path (`recurring[interval]`, `line_items[0][price]`).
 * Codes: parameter_unknown, parameter_missing, parameter_invalid_empty, parameter_invalid_integer,
 * parameter_invalid_number, parameter_invalid_boolean, parameter_invalid_string,
 * parameter_invalid_string_too_long, parameter_invalid_enum, parameter_invalid_object,
 * parameter_invalid_array.
 */
import { FormValue, paramName } from './form';
import { resolve, Schema } from './spec';

export interface ParamProblem {
  code: string;
  param: string;
  message: string;
}

type Path = (string | number)[];
const isObject = (v: unknown): v is Record<string, FormValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks `params` against `schema`; answers the coerced value and every problem found. */
export function checkParams(schema: Schema, params: Record<string, FormValue>) {
  const problems: ParamProblem[] = [];
  const value = check(schema, params, [], problems, false);
  return { value: value as Record<string, unknown>, problems };
}

function problem(problems: ParamProblem[], code: string, path: Path, message: string): undefined {
  problems.push({ code, param: paramName(path), message });
  return undefined;
}

/** `inMap`: the value of a free map (`metadata[key]`), where `""` is an ordinary value. */
function check(schema: Schema, value: FormValue, path: Path, problems: ParamProblem[], inMap: boolean): unknown {
  const s = resolve(schema);
  if (s.anyOf) return checkAnyOf(s.anyOf, value, path, problems, inMap);
  const name = paramName(path);
  if (value === '' && s.type !== undefined && !(s.enum ?? []).includes('') && !inMap) {
    return problem(
      problems,
      'parameter_invalid_empty',
      path,
      `You passed an empty string for '${name}'. We assume empty values are an attempt to unset a parameter; however '${name}' cannot be unset. You should remove '${name}' from your request or supply a non-empty value.`,
    );
  }
  switch (s.type) {
    case 'object':
      return checkObject(s, value, path, problems);
    case 'array':
      return checkArray(s, value, path, problems);
    case 'integer':
      if (typeof value !== 'string' || !/^-?\d+$/.test(value))
        return problem(problems, 'parameter_invalid_integer', path, `Invalid integer: ${show(value)}`);
      return checkEnum(s, Number(value), path, problems);
    case 'number':
      if (typeof value !== 'string' || !/^-?\d+(\.\d+)?$/.test(value))
        return problem(problems, 'parameter_invalid_number', path, `Invalid decimal: ${show(value)}`);
      return checkEnum(s, Number(value), path, problems);
    case 'boolean':
      if (value !== 'true' && value !== 'false')
        return problem(problems, 'parameter_invalid_boolean', path, `Invalid boolean: ${show(value)}`);
      return value === 'true';
    case 'string':
      if (typeof value !== 'string')
        return problem(problems, 'parameter_invalid_string', path, `Invalid string: ${show(value)} for ${name}`);
      if (s.maxLength !== undefined && value.length > s.maxLength)
        return problem(
          problems,
          'parameter_invalid_string_too_long',
          path,
          `Invalid string: ${show(value)}; must be at most ${s.maxLength} characters`,
        );
      return checkEnum(s, value, path, problems);
    case undefined:
      return checkEnum(s, value, path, problems);
  }
}

function checkEnum(s: Schema, value: unknown, path: Path, problems: ParamProblem[]): unknown {
  if (!s.enum || s['x-stripeBypassValidation'] || s.enum.includes(value)) return value;
  return problem(
    problems,
    'parameter_invalid_enum',
    path,
    `Invalid ${paramName(path)}: must be one of ${s.enum.map(String).join(', ')}`,
  );
}

function checkObject(s: Schema, value: FormValue, path: Path, problems: ParamProblem[]): unknown {
  if (!isObject(value))
    return problem(problems, 'parameter_invalid_object', path, `Invalid object: ${paramName(path)} must be a hash`);
  const out: Record<string, unknown> = {};
  const props = s.properties ?? {};
  const free = s.properties === undefined && s.additionalProperties === undefined;
  for (const key of Object.keys(value)) {
    const sub = [...path, key];
    if (Object.prototype.hasOwnProperty.call(props, key))
      out[key] = check(props[key], value[key], sub, problems, false);
    else if (typeof s.additionalProperties === 'object')
      out[key] = check(s.additionalProperties, value[key], sub, problems, true);
    else if (free || s.additionalProperties === true) out[key] = value[key];
    else problem(problems, 'parameter_unknown', sub, `Received unknown parameter: ${paramName(sub)}`);
  }
  for (const key of s.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) {
      const sub = [...path, key];
      problem(problems, 'parameter_missing', sub, `Missing required param: ${paramName(sub)}.`);
    }
  }
  return out;
}

function checkArray(s: Schema, value: FormValue, path: Path, problems: ParamProblem[]): unknown {
  let items: FormValue[];
  if (Array.isArray(value)) items = value;
  else if (isObject(value) && Object.keys(value).every((k) => /^\d+$/.test(k)))
    items = Object.keys(value)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => value[k]);
  else return problem(problems, 'parameter_invalid_array', path, `Invalid array: ${paramName(path)}`);
  if (s.maxItems !== undefined && items.length > s.maxItems)
    return problem(
      problems,
      'parameter_invalid_array',
      path,
      `Invalid array: ${paramName(path)} must have at most ${s.maxItems} items`,
    );
  return items.map((item, i) => (s.items ? check(s.items, item, [...path, i], problems, false) : item));
}

/**
 * The first branch that takes the value wins; when none does, the problems of the branch that
 * got deepest into it are reported (an object branch's nested error rather than "not a string").
 */
function checkAnyOf(branches: Schema[], value: FormValue, path: Path, problems: ParamProblem[], inMap: boolean) {
  let best: ParamProblem[] | null = null;
  for (const branch of branches) {
    const found: ParamProblem[] = [];
    const v = check(branch, value, path, found, inMap);
    if (found.length === 0) return v;
    const depth = Math.max(...found.map((p) => p.param.length));
    if (!best || depth > Math.max(...best.map((p) => p.param.length))) best = found;
  }
  problems.push(...(best ?? []));
  return undefined;
}

const show = (v: FormValue): string =>
  typeof v !== 'string' ? 'a hash' : JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
