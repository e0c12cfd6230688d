/**
 * Stripe's form encoding, decoded (request bodies and GET query strings): `name=x`,
 * `metadata[a]=b`, `expand[]=x` or `expand[0]=x`, `items[0][price]=p`, nested to any depth.
 * Indexed keys (`[0]`) decode to objects with numeric keys; the validator turns them into
 * arrays where the schema wants an array (stripe-node sends indices, other clients `[]`).
 * Keys are own properties even when named `__proto__`, so the validator refuses them as unknown.
 * A small decoder rather than `qs` (only a transitive dependency here, with depth and array
 * limits that would silently reshape deep Stripe parameters).
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

export class FormError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is FormObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function put(target: FormObject | FormValue[], key: string, value: FormValue): void {
  if (Array.isArray(target)) target.push(value);
  else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
const own = (o: FormObject | FormValue[], key: string): FormValue | undefined =>
  Array.isArray(o) ? undefined : Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;

/** `a[b][]` → ['a', 'b', '']; answers null for a key that is not well formed. */
function segments(key: string): string[] | null {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) return null;
  const rest = [...m[2].matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]);
  return [m[1], ...rest];
}

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new FormError(s, `Invalid URL encoding: ${s.slice(0, 40)}`);
  }
};

export function decodeForm(text: string): FormObject {
  const root: FormObject = {};
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const path = segments(key);
    if (!path) throw new FormError(key, `Invalid parameter name: ${key}`);
    let node: FormObject | FormValue[] = root;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const last = i === path.length - 1;
      if (last) {
        put(node, seg, value);
        break;
      }
      const nextIsPush = path[i + 1] === '';
      let child: FormValue | undefined;
      if (Array.isArray(node)) {
        // `items[][price]=a&items[][quantity]=1`: a new element when the last one has the key.
        const tail: FormValue | undefined = node[node.length - 1];
        const nextKey = path[i + 1];
        child = isObject(tail) && own(tail, nextKey) === undefined ? tail : undefined;
      } else child = own(node, seg);
      if (child === undefined || typeof child === 'string') {
        child = nextIsPush ? [] : {};
        put(node, seg, child);
      } else if (nextIsPush && !Array.isArray(child)) {
        throw new FormError(key, `Invalid array: ${key}`);
      } else if (!nextIsPush && Array.isArray(child)) {
        throw new FormError(key, `Invalid hash: ${key}`);
      }
      node = child;
    }
  }
  return root;
}

/** `['items', 0, 'price']` → `items[0][price]`, as Stripe names a nested parameter. */
export function paramName(path: (string | number)[]): string {
  return path.map((p, i) => (i === 0 ? String(p) : `[${p}]`)).join('');
}
