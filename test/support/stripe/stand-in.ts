/**
 * An offline stand-in for the Stripe API that checks every request against Stripe's own
 * published OpenAPI contract (test/fixtures/stripe/spec-subset.json; VERSION.md says which
 * commit and how it was cut) and answers from Stripe's fixtures.
 *
 *   const standIn = await startStripeStandIn();            // 127.0.0.1, a free port
 *   const stripe = new Stripe('sk_test_123', standIn.clientOptions());
 *   …
 *   expect(standIn.invalid()).toEqual([]);                  // every request the spec accepted
 *   await standIn.close();
 *
 * API (stable; other tests depend on it):
 * - `startStripeStandIn({ port?, log? })` → `StripeStandIn`; `log` gets one line per request.
 * - `url` ('http://127.0.0.1:PORT'), `port`, `clientOptions()` → `{ host, port, protocol: 'http' }`.
 * - `requests`: every request `{ method, path, operationId?, params, apiKey, idempotencyKey,
 *   valid, errors, status, replayed, injected }`; `validatedCount` (checked against the spec
 *   and valid); `invalid()` (the refused ones: spec, route, key or encoding).
 * - `objects(type?)`: the stored objects of both modes (`'product'`, `'payment_intent'`, …).
 * - `failNext({ status: 500 | 429 | 503, times?, match? })`: Stripe-shaped error answers
 *   (429: `rate_limit`); `hangNext({ times?, match? })`: requests never answered.
 * - `eventFor(type, objectId, opts?)`: a webhook event of the stored object (event-effects.ts).
 * - `reset()`: forgets requests, objects, idempotency keys and pending failures; `close()`.
 *
 * Checks: the route is one of the spec's operations (else 404), `Authorization: Bearer` carries
 * an sk_/rk_ test or live key (else 401), the form body (or GET query) decodes (form.ts) and
 * satisfies the operation's schema (validate.ts: 400 parameter_unknown, parameter_missing,
 * parameter_invalid_*). Objects are kept per key mode. `Idempotency-Key` replays the stored
 * answer for the same parameters (`Idempotent-Replayed: true`) and refuses other parameters
 * (400 idempotency_error); answers of requests the spec refused are not stored, as at Stripe.
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventFromStore } from './event-effects';
import type { StripeEventObject, StripeEventOptions } from './events';
import { decodeForm, FormError, FormObject } from './form';
import { PAYMENT_HANDLERS } from './payments';
import { RESOURCE_HANDLERS } from './resources';
import { findOperation } from './spec';
import { Answer, invalidRequest, Json, Mode, ObjectStore, randomToken, StripeFailure, StripeObject } from './store';
import { checkParams } from './validate';
import { countStripeRequest } from '../response-check-store';

export interface RecordedRequest {
  method: string;
  path: string;
  operationId?: string;
  /** The decoded form parameters (strings, as sent). */
  params: FormObject;
  apiKey: string | null;
  idempotencyKey: string | null;
  /** The request passed the route, key, encoding and spec checks. */
  valid: boolean;
  errors: string[];
  /** The status answered; 0 while unanswered (a hung request stays 0). */
  status: number;
  replayed: boolean;
  injected: boolean;
}

export type RequestMatch = (req: RecordedRequest) => boolean;

export interface StripeStandIn {
  url: string;
  port: number;
  requests: RecordedRequest[];
  readonly validatedCount: number;
  invalid(): RecordedRequest[];
  objects(type?: string): StripeObject[];
  failNext(opts: { status: 500 | 429 | 503; times?: number; match?: RequestMatch }): void;
  hangNext(opts?: { times?: number; match?: RequestMatch }): void;
  eventFor(type: string, objectId: string, opts?: StripeEventOptions): StripeEventObject;
  clientOptions(): { host: string; port: number; protocol: 'http' };
  reset(): void;
  close(): Promise<void>;
}

interface Rule {
  hang: boolean;
  status: number;
  left: number;
  match?: RequestMatch;
}

const HANDLERS = { ...RESOURCE_HANDLERS, ...PAYMENT_HANDLERS };
const KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/;
const INJECTED: Record<number, Record<string, string>> = {
  429: {
    type: 'invalid_request_error',
    code: 'rate_limit',
    message: 'Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.',
  },
  500: { type: 'api_error', message: 'Something went wrong on Stripe’s end. (stand-in: injected failure)' },
  503: { type: 'api_error', message: 'Stripe is temporarily unavailable. (stand-in: injected failure)' },
};

const isAnswer = (o: StripeObject | Answer): o is Answer => !('object' in o) && 'status' in o && 'body' in o;

/** `expand[]` of stored ids in the answer (`latest_charge`, `customer`, `invoice_settings.default_payment_method`). */
function expand(body: StripeObject, paths: unknown, store: ObjectStore, mode: Mode): unknown {
  if (!Array.isArray(paths) || paths.length === 0) return body;
  const out = structuredClone(body);
  for (const path of paths as string[]) {
    const keys = path.split('.');
    let node: Json = out;
    for (const k of keys.slice(0, -1)) node = node?.[k];
    const last = keys[keys.length - 1];
    const id = node?.[last];
    if (typeof id === 'string' && store.get(mode, id)) node[last] = structuredClone(store.get(mode, id));
  }
  return out;
}

export async function startStripeStandIn(
  options: { port?: number; log?: (line: string) => void } = {},
): Promise<StripeStandIn> {
  const store = new ObjectStore();
  const requests: RecordedRequest[] = [];
  const idempotent = new Map<string, { signature: string; answer: Answer }>();
  let rules: Rule[] = [];

  function handle(rec: RecordedRequest, req: IncomingMessage, body: string, res: ServerResponse): void {
    const send = (answer: Answer, headers: Record<string, string> = {}) => {
      rec.status = answer.status;
      options.log?.(
        `${rec.method} ${rec.path} ${answer.status} ${rec.valid ? 'valid' : `INVALID ${rec.errors.join('; ')}`}`,
      );
      res.writeHead(answer.status, {
        'content-type': 'application/json',
        'request-id': `req_${randomToken(14)}`,
        ...(rec.idempotencyKey ? { 'idempotency-key': rec.idempotencyKey } : {}),
        ...headers,
      });
      res.end(JSON.stringify(answer.body, null, 2));
    };
    const refuse = (failure: StripeFailure, error: string) => {
      rec.errors.push(error);
      send(failure.answer());
    };

    const auth = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    rec.apiKey = auth ? auth[1] : null;
    const found = findOperation(rec.method, rec.path);
    rec.operationId = found?.op.operationId;
    if (!rec.apiKey || !KEY.test(rec.apiKey)) {
      const message = rec.apiKey
        ? `Invalid API Key provided: ${rec.apiKey.slice(0, 8)}****${rec.apiKey.slice(-4)}`
        : "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').";
      return refuse(invalidRequest(message, undefined, undefined, 401), 'no valid API key');
    }
    if (!found) {
      const message = `Unrecognized request URL (${rec.method}: ${rec.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`;
      return refuse(
        invalidRequest(message, undefined, undefined, 404),
        'no operation of the spec has this method and path',
      );
    }
    const type = req.headers['content-type'] ?? '';
    if (body && rec.method === 'POST' && !type.startsWith('application/x-www-form-urlencoded')) {
      const message = `Invalid request: the Stripe API takes application/x-www-form-urlencoded bodies, not ${type || 'none'}`;
      return refuse(invalidRequest(message), `content type ${type}`);
    }
    try {
      const query = rec.path === req.url ? '' : (req.url ?? '').slice(rec.path.length + 1);
      rec.params = decodeForm(rec.method === 'GET' ? query : body);
    } catch (e) {
      if (!(e instanceof FormError)) throw e;
      return refuse(invalidRequest(e.message, 'parameter_invalid', e.param), `encoding: ${e.message}`);
    }
    const { value: params, problems } = checkParams(found.op.params, rec.params);
    if (problems.length > 0) {
      rec.errors.push(...problems.map((p) => `${p.code} ${p.param}: ${p.message}`));
      return send(invalidRequest(problems[0].message, problems[0].code, problems[0].param).answer());
    }
    rec.valid = true;

    const rule = rules.find((r) => r.left > 0 && (!r.match || r.match(rec)));
    if (rule) {
      rule.left -= 1;
      rec.injected = true;
      if (rule.hang) return void options.log?.(`${rec.method} ${rec.path} (hung: never answered)`);
      return send({ status: rule.status, body: { error: INJECTED[rule.status] } });
    }

    const mode: Mode = rec.apiKey.includes('_live_') ? 'live' : 'test';
    const idemKey = rec.method === 'POST' && rec.idempotencyKey ? `${mode}:${rec.idempotencyKey}` : null;
    const signature = JSON.stringify([rec.method, rec.path, rec.params]);
    const earlier = idemKey ? idempotent.get(idemKey) : undefined;
    if (earlier && earlier.signature !== signature) {
      const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${rec.idempotencyKey}' if you meant to execute a different request.`;
      return send({ status: 400, body: { error: { type: 'idempotency_error', message } } });
    }
    if (earlier) {
      rec.replayed = true;
      return send(earlier.answer, { 'idempotent-replayed': 'true' });
    }
    let answer: Answer;
    try {
      const out = HANDLERS[found.op.operationId]({ mode, ids: found.ids, params, store });
      answer = isAnswer(out) ? out : { status: 200, body: expand(out, params.expand, store, mode) };
    } catch (e) {
      if (!(e instanceof StripeFailure)) throw e;
      answer = e.answer();
    }
    // The answer is a snapshot: a replay gives this body, not the object as it is later.
    answer = { status: answer.status, body: JSON.parse(JSON.stringify(answer.body)) };
    if (idemKey) idempotent.set(idemKey, { signature, answer });
    send(answer);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.split('?')[0],
        params: {},
        apiKey: null,
        idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
        valid: false,
        errors: [],
        status: 0,
        replayed: false,
        injected: false,
      };
      requests.push(rec);
      try {
        handle(rec, req, Buffer.concat(chunks).toString('utf8'), res);
        countStripeRequest(rec.valid);
      } catch (e) {
        rec.errors.push(`stand-in failed: ${(e as Error).stack}`);
        rec.status = 500;
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: `stand-in failed: ${(e as Error).message}` } }));
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get validatedCount() {
      return requests.filter((r) => r.valid).length;
    },
    invalid: () => requests.filter((r) => !r.valid),
    objects: (type?: string) => store.all(type),
    failNext: ({ status, times = 1, match }) => void rules.push({ hang: false, status, left: times, match }),
    hangNext: ({ times = 1, match } = {}) => void rules.push({ hang: true, status: 0, left: times, match }),
    eventFor: (type, objectId, opts) => eventFromStore(store, type, objectId, opts),
    clientOptions: () => ({ host: '127.0.0.1', port, protocol: 'http' }),
    reset() {
      requests.length = 0;
      store.clear();
      idempotent.clear();
      rules = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hung requests and idle keep-alive sockets would hold close() open.
        server.closeAllConnections();
      }),
  };
}
