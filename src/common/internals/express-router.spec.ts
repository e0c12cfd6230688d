import express from 'express';
import { routerRoutes } from './express-router';

const noop: express.RequestHandler = (_req, res) => res.end();

function app(): express.Express {
  const a = express();
  a.use(noop);
  a.get('/items/:id', noop);
  a.route('/items').get(noop).post(noop);
  a.all('/files/*path', noop);
  a.get(/^\/re$/, noop);
  return a;
}

describe("reads of Express's route table", () => {
  it('list the routes in the order Express tries them, middleware left out', () => {
    const routes = [...routerRoutes(app())].map((r) => [r.path, r.methods]);
    expect(routes).toEqual([
      ['/items/:id', ['GET']],
      ['/items', ['GET', 'POST']],
      ['/files/*path', 'all'],
      [/^\/re$/, ['GET']],
    ]);
  });

  it('match paths and verbs as Express does, HEAD by GET', () => {
    const [item, items, files] = routerRoutes(app());
    expect([item.matches('/items/7'), item.matches('/items'), items.matches('/items')]).toEqual([true, false, true]);
    expect([item.handles('GET'), item.handles('HEAD'), item.handles('POST')]).toEqual([true, true, false]);
    expect([files.matches('/files/a/b.png'), files.handles('DELETE')]).toEqual([true, true]);
    expect(() => item.matches('/items/%E0%A4%A')).toThrow();
  });

  it('find nothing in something that is not an Express app', () => {
    expect([...routerRoutes(undefined)]).toEqual([]);
    expect([...routerRoutes({})]).toEqual([]);
  });
});
