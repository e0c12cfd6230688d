import request from 'supertest';
import { COMMON_PROBLEMS } from '../../src/common/errors/common.problems';
import { CATALOG_PROBLEMS } from '../../src/catalog/catalog.problems';
import { CONTENT_PROBLEMS } from '../../src/content/content.problems';
import { ORDERS_PROBLEMS } from '../../src/orders/orders.problems';
import { startApp, TestApp } from '../support/app';
import { expectOrFix } from '../support/matchers';

interface Response {
  description?: string;
  content?: Record<string, unknown>;
  'x-problem-codes'?: string[];
}
type Document = {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, Response> }>>;
};

/**
 * Problem codes in the document (docs/openapi.md, "Problem codes"): every problem response lists
 * the codes of its status that the operation's module, the modules it imports and the foundation
 * declare, from the same declarations that type the problem classes.
 */
describe('problem codes in the OpenAPI document', () => {
  let t: TestApp;
  let doc: Document;
  const operation = (id: string) =>
    Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .find((op) => op.operationId === id)!;

  beforeAll(async () => {
    t = await startApp();
    doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body as Document;
  });
  afterAll(() => t.close());

  it('lists codes on every problem response, each declared with that status', () => {
    const declared = new Map<string, number>();
    for (const codes of [COMMON_PROBLEMS, CATALOG_PROBLEMS, CONTENT_PROBLEMS, ORDERS_PROBLEMS])
      for (const [code, status] of Object.entries(codes)) declared.set(code, status);
    const bare: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (!response.content?.['application/problem+json']) continue;
          const codes = response['x-problem-codes'];
          if (!codes?.length)
            bare.push(
              `${method} ${path} ${status}: no code of its module answers ${status}: declare the codes its service ` +
                "throws with that status in its module's <module>.problems.ts (defineProblems('<module>', { code: " +
                `${status} })), put them on the Nest module with @AnswersProblems(...), or drop ${status} from its ` +
                "@Route's problems (docs/openapi.md, Problem codes)",
            );
          for (const code of (codes ?? []).filter((c) => !(c in COMMON_PROBLEMS)))
            expectOrFix(
              `${method} ${path} ${status}: its description must name \`${code}\`, as documentProblemCodes ` +
                '(src/common/openapi/openapi-problems.ts) writes it beside x-problem-codes: leave both to it (declare ' +
                "the code in the module's <module>.problems.ts), rather than writing x-problem-codes elsewhere",
              () => expect(response.description).toContain(`\`${code}\``),
            );
          for (const code of codes ?? []) {
            if (declared.has(code))
              expectOrFix(
                `${method} ${path}: \`${code}\` is declared with status ${declared.get(code)} in its <module>.problems.ts ` +
                  `but listed under ${status}: a code has one status; throw it with that one`,
                () => expect([code, declared.get(code)]).toEqual([code, Number(status)]),
              );
          }
        }
      }
    }
    expect(bare).toEqual([]);
  });

  it("gives an operation its module's codes and those of the modules it calls, not another module's", () => {
    const createOrder = operation('createOrder').responses['409']['x-problem-codes'];
    // Its own, the catalog's (stock: OrdersModule imports CatalogModule) and the shared ones.
    expect(createOrder).toEqual(
      expect.arrayContaining(['too_many_pending_orders', 'out_of_stock', 'idempotency_key_reused', 'duplicate']),
    );
    const createContent = operation('createContent').responses['409']['x-problem-codes'];
    expect(createContent).toEqual(expect.arrayContaining(['duplicate_slug', 'transition_forbidden']));
    expect(createContent).not.toContain('too_many_pending_orders');
    expect(createContent).not.toContain('out_of_stock');
    // A 401 lists only the foundation's credential codes on a content route, and the
    // provider's signature code on the orders' notification route.
    expect(operation('listContent').responses['401']['x-problem-codes']).not.toContain('invalid_signature');
    expect(
      Object.values(doc.paths)
        .flatMap((item) => Object.values(item))
        .some((op) => op.responses['401']?.['x-problem-codes']?.includes('invalid_signature')),
    ).toBe(true);
  });
});
