import request from 'supertest';
import { startApp, TestApp } from '../support/app';

type Op = {
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
};

const KEY = [{ apiKey: [] }, { bearer: [] }];
const OPTIONAL = [...KEY, {}];
const C = '/api/v2/sites/{siteName}/content';
const L = '/api/v2/sites/{siteName}/collections';

/** [method, path, tag, security, a success status] of every route of content, collections and v1 pages. */
const ROUTES: Array<[string, string, string, unknown, string]> = [
  ['get', C, 'Content', OPTIONAL, '200'],
  ['post', C, 'Content', KEY, '201'],
  ['get', `${C}/{id}`, 'Content', OPTIONAL, '200'],
  ['patch', `${C}/{id}`, 'Content', KEY, '200'],
  ['delete', `${C}/{id}`, 'Content', KEY, '204'],
  ['post', `${C}/{id}/publish`, 'Content', KEY, '200'],
  ['post', `${C}/{id}/unpublish`, 'Content', KEY, '200'],
  ['get', `${C}/{id}/revisions`, 'Content', KEY, '200'],
  ['get', `${C}/{id}/revisions/{revisionId}`, 'Content', KEY, '200'],
  ['post', `${C}/{id}/revisions/{revisionId}/restore`, 'Content', KEY, '200'],
  ['get', L, 'Collections', OPTIONAL, '200'],
  ['post', L, 'Collections', KEY, '201'],
  ['get', `${L}/current`, 'Collections', OPTIONAL, '200'],
  ['get', `${L}/{id}`, 'Collections', OPTIONAL, '200'],
  ['patch', `${L}/{id}`, 'Collections', KEY, '200'],
  ['delete', `${L}/{id}`, 'Collections', KEY, '204'],
  ['get', `${L}/{id}/items`, 'Collections', OPTIONAL, '200'],
  ['post', `${L}/{id}/items`, 'Collections', KEY, '201'],
  ['delete', `${L}/{id}/items/{itemId}`, 'Collections', KEY, '204'],
  ['post', '/v1/{site_name}/pages', 'v1 legacy', [{ apiKey: [] }], '200'],
  ['get', '/v1/{site_name}/pages/{page_id}', 'v1 legacy', [{ apiKey: [] }], '200'],
  ['get', '/v1/{site_name}/pages/{limit}/{offset}', 'v1 legacy', [{ apiKey: [] }], '200'],
  ['put', '/v1/{site_name}/pages/{page_id}', 'v1 legacy', [{ apiKey: [] }], '200'],
  ['delete', '/v1/{site_name}/pages/{page_id}', 'v1 legacy', [{ apiKey: [] }], '200'],
];

describe('OpenAPI of content, collections and v1 pages', () => {
  let t: TestApp;
  let paths: Record<string, Record<string, Op>>;

  beforeAll(async () => {
    t = await startApp();
    paths = (await request(t.server).get('/docs/openapi.json').expect(200)).body.paths;
  });
  afterAll(() => t.close());

  it.each(ROUTES)(
    '%s %s: summary, tag, security, success and problem responses',
    (method, path, tag, security, success) => {
      const op = paths[path]?.[method];
      expect(op).toBeDefined();
      expect(op.summary).toEqual(expect.any(String));
      expect({ tags: op.tags, security: op.security }).toEqual({ tags: [tag], security });
      expect(Object.keys(op.responses)).toContain(success);
      const problems = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      expect(problems).toEqual(expect.arrayContaining(['401', '404']));
      for (const status of problems) {
        expect(op.responses[status]).toEqual(
          expect.objectContaining({
            content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDto' } } },
          }),
        );
      }
    },
  );
});
