import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { freePort } from '../support/databases';
import { createTenant, Tenant } from '../support/tenant';
import { scaled } from '../support/time-scale';

/**
 * A publishable key used as it is meant to be: from a page a person opens, on another origin than
 * the API, in headless Chromium. The shop's page reads published content with it; the same page
 * served under another host name is refused by the key's origin list, and a write from the shop's
 * page is refused too. Both host names are 127.0.0.1 (Chromium's resolver rules): no traffic
 * leaves the machine.
 */
describe('a publishable key in a browser on another origin', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser;
  let pages: Server;
  let api: string;
  let shop: string;
  let evil: string;
  let key: string;

  beforeAll(async () => {
    t = await startApp({ env: { JOBS_ENABLED: 'false' } });
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    api = `http://127.0.0.1:${port}`;
    tenant = await createTenant(t);
    // The page: it calls the API with the key and writes what it got into the document.
    pages = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end('<!doctype html><title>shop</title><pre id="out"></pre>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    const pagePort = (pages.address() as AddressInfo).port;
    shop = `http://shop.test:${pagePort}`;
    evil = `http://evil.test:${pagePort}`;
    const made = await tenant.api
      .post('/api/v2/api-keys')
      .send({ name: 'shop front end', kind: 'publishable', allowedOrigins: [shop] });
    key = made.body.key as string;
    await tenant.api.post(`/api/v2/sites/${tenant.siteName}/content`).send({ title: 'On sale', status: 'published' });
    await tenant.api.post(`/api/v2/sites/${tenant.siteName}/content`).send({ title: 'Next season (draft)' });
    browser = await launchChromium(['shop.test', 'evil.test']);
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
    await t?.close();
  });

  /** Opens `origin`'s page and has it call the API with the key: the status and the body it read. */
  async function fromPage(
    origin: string,
    init: { method?: string; body?: string } = {},
  ): Promise<{ status: number; body: { code?: string; data?: Array<{ title: string }> } }> {
    const page = await browser.newPage();
    page.setDefaultTimeout(scaled(10000));
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(
        async ({ url, key, init }) => {
          const res = await fetch(url, {
            method: init.method ?? 'GET',
            headers: { 'x-api-key': key, ...(init.body ? { 'content-type': 'application/json' } : {}) },
            body: init.body,
          });
          return { status: res.status, body: (await res.json()) as { code?: string; data?: Array<{ title: string }> } };
        },
        { url: `${api}/api/v2/sites/${tenant.siteName}/content`, key, init },
      );
    } finally {
      await page.close();
    }
  }

  it("reads published content from the shop's page, never the draft", async () => {
    const got = await fromPage(shop);
    expect(got.status).toBe(200);
    expect(got.body.data?.map((c) => c.title)).toEqual(['On sale']);
  }, 30000);

  it('is refused from a page on an origin the key does not allow', async () => {
    const got = await fromPage(evil);
    expect({ status: got.status, code: got.body.code }).toEqual({ status: 403, code: 'origin_not_allowed' });
  }, 30000);

  it("is refused on a write, even from the shop's page, and nothing is written", async () => {
    const got = await fromPage(shop, { method: 'POST', body: JSON.stringify({ title: 'Defaced' }) });
    expect({ status: got.status, code: got.body.code }).toEqual({ status: 403, code: 'insufficient_permission' });
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM content_items WHERE title = 'Defaced'`);
    expect(n).toBe(0);
  }, 30000);
});
