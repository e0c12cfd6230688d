import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase } from '../support/databases';
import { makePng } from '../support/files';
import type { OpenApiDocument, Schema } from '../support/openapi-operations';
import { sampleOf } from '../support/openapi-examples';

const KEY = `sb_live_${'Ex4'.repeat(13)}Z`;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Param = { name: string; in: string; required?: boolean; example?: unknown; schema?: Schema };
type Op = {
  operationId: string;
  parameters?: Param[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
  security?: Array<Record<string, string[]>>;
  'x-example-answers'?: number;
};

describe('every example in the document runs against what a fresh `npm start` makes', () => {
  let t: TestApp;
  let doc: OpenApiDocument & { paths: Record<string, Record<string, Op>> };

  beforeAll(async () => {
    t = await startApp({
      databaseUrl: await createFreshDatabase('examples'),
      env: { BOOTSTRAP_ENABLED: 'true', BOOTSTRAP_API_KEY: KEY },
    });
    doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body;
  }, 60000);
  afterAll(() => t?.close());

  it('runs', async () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] })),
    );
    const phase = (o: (typeof ops)[number]) =>
      o.method === 'delete' ? 3 : o.method === 'post' && o.op.responses['201'] ? 0 : o.method === 'get' ? 1 : 2;
    ops.sort((a, b) => phase(a) - phase(b));
    const out: string[] = [];
    for (const { path, method, op } of ops) {
      const params = op.parameters ?? [];
      const value = (p: Param) => p.example ?? p.schema?.example;
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(String(value(params.find((p) => p.in === 'path' && p.name === name)!))),
      );
      const query = params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${String(value(p))}`);
      let req = request(t.server)[method](query.length ? `${url}?${query.join('&')}` : url);
      if ((op.security ?? []).some((s) => 'apiKey' in s)) req = req.set('x-api-key', KEY);
      for (const h of params.filter((p) => p.in === 'header' && p.required)) req = req.set(h.name, String(value(h)));
      const content = op.requestBody?.content ?? {};
      if (content['application/json']) req = req.send(sampleOf(doc, content['application/json'].schema) as object);
      else if (content['multipart/form-data']) {
        const form = sampleOf(doc, content['multipart/form-data'].schema) as Record<string, unknown>;
        for (const [k, v] of Object.entries(form)) {
          if (k === 'file') req = req.attach('file', await makePng(4, 4), 'example.png');
          else req = req.field(k, typeof v === 'string' ? v : JSON.stringify(v));
        }
      }
      const res = await req;
      const expected =
        op['x-example-answers'] ??
        Math.min(...Object.keys(op.responses).map(Number).filter((s) => s >= 200 && s < 400));
      if (res.status !== expected)
        out.push(`${method.toUpperCase()} ${path} ${res.status} (want ${expected}) ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    console.log(out.join('\n') + `\n${out.length} of ${ops.length}`);
  }, 120000);
});
