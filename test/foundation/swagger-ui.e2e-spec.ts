import type { Browser, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { createFreshDatabase, freePort } from '../support/databases';
import { createTenant, Tenant } from '../support/tenant';
import { scaled } from '../support/time-scale';

/** A second name for 127.0.0.1, resolved by Chromium itself (no DNS, no hosts file). */
const OTHER_HOST = 'sitebase.test';

/**
 * Swagger UI at /docs, in headless Chromium, used as a person would: Authorize with a key, then
 * "Try it out" and "Execute" on one list route of each group, touching no field. The site's
 * name comes filled in from its example (the tenant's site is called `demo`, like the demo site
 * `npm start` makes); optional filters stay empty, so each call answers 200. The page is opened
 * at 127.0.0.1 and at another host name, neither of them PUBLIC_BASE_URL: the document's server
 * is relative, so each page calls its own origin.
 */
describe('Swagger UI in a real browser', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser;
  let page: Page;
  let base: string;
  let other: string;
  /** Requests a page made to anything but the app (each is aborted). */
  const outside: string[] = [];
  /** What the first page loaded: each answer's path, bytes over the wire and Content-Encoding. */
  const loaded: Array<{ path: string; bytes: number; encoding: string | undefined }> = [];
  /** Milliseconds from the first page's navigation to its operations drawn. */
  let loadMs = 0;

  async function openDocs(origin: string, record?: typeof loaded): Promise<Page> {
    const opened = await browser.newPage();
    opened.setDefaultTimeout(scaled(10000));
    const sizes: Array<Promise<void>> = [];
    opened.on('response', (response) => {
      if (!record) return;
      const path = new URL(response.url()).pathname;
      sizes.push(
        Promise.all([response.request().sizes(), response.headerValue('content-encoding')]).then(([size, encoding]) => {
          record.push({
            path,
            bytes: size.responseBodySize + size.responseHeadersSize,
            encoding: encoding ?? undefined,
          });
        }),
      );
    });
    // Nothing leaves the app: any other request the page makes fails the test.
    await opened.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const started = Date.now();
    await opened.goto(`${origin}/docs`);
    await opened.locator('.swagger-ui .info .title').waitFor();
    // The document came by URL: the page is usable once its operations are drawn.
    await opened.locator('.opblock').first().waitFor();
    if (record) {
      loadMs = Date.now() - started;
      await Promise.all(sizes);
    }
    return opened;
  }

  async function authorize(on: Page): Promise<string | null> {
    await on.locator('button.authorize').first().click();
    const dialog = on.locator('.dialog-ux');
    // The apiKey scheme's block (x-api-key); the bearer one is left empty.
    const block = dialog.locator('.auth-container').filter({ hasText: 'x-api-key' });
    await block.locator('input').fill(tenant.key);
    await block.getByRole('button', { name: 'Apply credentials' }).click();
    await block.getByRole('button', { name: 'Remove authorization' }).waitFor();
    const state = await block.locator('h6').textContent();
    await dialog.locator('button.close-modal').click();
    return state;
  }

  /** Try it out, then Execute, on one operation, touching no field: the URL called, the status and the body shown. */
  async function tryItOut(on: Page, group: string, method: string, path: string) {
    const block = on.locator(`.opblock-${method}`).filter({
      has: on.locator(`.opblock-summary-path[data-path="${path}"]`),
    });
    // The page holds every group: narrow it to this one with the filter box, as a person would.
    await on.locator('input.operation-filter-input').fill(group);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    await block.locator('button.execute').click();
    await block.locator('.live-responses-table .response').first().waitFor();
    const requestUrl = (await block.locator('.request-url pre').textContent())?.trim() ?? '';
    const status = (
      await block.locator('.live-responses-table tbody .response-col_status').first().textContent()
    )?.trim();
    const body =
      (await block.locator('.live-responses-table .response-col_description pre').first().textContent()) ?? '';
    return { requestUrl, status, body };
  }

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    other = `http://${OTHER_HOST}:${port}`;
    // Its own database, where the name `demo` is free. PUBLIC_BASE_URL names neither address
    // the page is opened at (as on a VM reached by its LAN address): the page must not need it.
    t = await startApp({
      databaseUrl: await createFreshDatabase('swagger'),
      env: { PUBLIC_BASE_URL: 'http://sitebase.invalid' },
    });
    await t.app.listen(port, '127.0.0.1');
    tenant = await createTenant(t, { siteName: 'demo' });
    await tenant.api.post('/api/v2/sites/demo/content').send({ title: 'Seen from the docs' }).expect(201);
    // The second host name is 127.0.0.1 too: traffic stays on this machine.
    browser = await launchChromium([OTHER_HOST]);
    page = await openDocs(base, loaded);
    expect(outside).toEqual([]);
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('loads the document by URL, compressed: about 0.6 MB over the wire instead of 4 MB', () => {
    const total = loaded.reduce((sum, r) => sum + r.bytes, 0);
    const of = (path: string) => loaded.find((r) => r.path === path);
    // What the page costs, for the record (docs/openapi.md quotes it).
    process.stdout.write(
      `Swagger UI: ${loaded.length} answers, ${total} bytes over the wire, drawn in ${loadMs} ms\n` +
        loaded.map((r) => `  ${r.path} ${r.bytes} ${r.encoding ?? 'identity'}\n`).join(''),
    );
    // The start script is a few hundred bytes; the document is fetched once, by its URL.
    expect(of('/docs/swagger-ui-init.js')?.bytes).toBeLessThan(2000);
    expect(loaded.filter((r) => r.path === '/docs/openapi.json')).toHaveLength(1);
    for (const path of ['/docs/openapi.json', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs'])
      expect({ path, encoding: of(path)?.encoding }).toEqual({ path, encoding: expect.stringMatching(/^(gzip|br)$/) });
    expect(total).toBeLessThan(800_000);
  });

  it('authorizes with a key', async () => {
    await expect(authorize(page)).resolves.toBe('Authorized');
  });

  it('keeps the authorization across a reload (persistAuthorization)', async () => {
    await page.reload();
    await page.locator('.opblock').first().waitFor();
    await page.locator('button.authorize').first().click();
    const block = page.locator('.dialog-ux .auth-container').filter({ hasText: 'x-api-key' });
    await expect(block.locator('h6').textContent()).resolves.toBe('Authorized');
    await page.locator('.dialog-ux button.close-modal').click();
  });

  const LISTS: Array<[group: string, method: string, path: string, url: RegExp]> = [
    ['v1 legacy', 'get', '/v1/{site_name}/pages/{limit}/{offset}', /\/v1\/demo\/pages\/20\/0$/],
    ['API keys', 'get', '/api/v2/api-keys', /\/api\/v2\/api-keys\?limit=20$/],
    ['Account', 'get', '/api/v2/account/deletion-preview', /\/api\/v2\/account\/deletion-preview$/],
    ['Media', 'get', '/api/v2/sites/{siteName}/media', /\/api\/v2\/sites\/demo\/media\?limit=20$/],
    ['Content', 'get', '/api/v2/sites/{siteName}/content', /\/api\/v2\/sites\/demo\/content\?limit=20$/],
    ['Email', 'get', '/api/v2/sites/{siteName}/email/templates', /\/api\/v2\/sites\/demo\/email\/templates\?limit=20$/],
    ['Collections', 'get', '/api/v2/sites/{siteName}/collections', /\/api\/v2\/sites\/demo\/collections\?limit=20$/],
    ['Orders', 'get', '/api/v2/sites/{siteName}/orders', /\/api\/v2\/sites\/demo\/orders\?limit=20$/],
    ['Categories', 'get', '/api/v2/sites/{siteName}/categories', /\/api\/v2\/sites\/demo\/categories\?limit=20$/],
    ['Products', 'get', '/api/v2/sites/{siteName}/products', /\/api\/v2\/sites\/demo\/products\?limit=20$/],
    ['Site users', 'get', '/api/v2/sites/{siteName}/users', /\/api\/v2\/sites\/demo\/users\?limit=20$/],
    ['Contacts', 'get', '/api/v2/sites/{siteName}/contacts', /\/api\/v2\/sites\/demo\/contacts\?limit=20$/],
    ['Webhooks', 'get', '/api/v2/sites/{siteName}/webhooks', /\/api\/v2\/sites\/demo\/webhooks\?limit=20$/],
    ['Admin: sites', 'get', '/api/v2/sites', /\/api\/v2\/sites\?limit=20$/],
    ['Health', 'get', '/health', /\/health$/],
  ];

  it.each(LISTS)('%s: Try it out on %s %s answers 200, with the site filled in and no filter set', async (...row) => {
    const [group, method, path, url] = row;
    const { requestUrl, status, body } = await tryItOut(page, group, method, path);
    expect({ requestUrl, status }).toEqual({ requestUrl: expect.stringMatching(url), status: '200' });
    expect(requestUrl.startsWith(`${base}/`)).toBe(true);
    if (path.endsWith('/content')) expect(body).toContain('Seen from the docs');
  });

  it(`works the same opened at another host name (${OTHER_HOST}): it calls that origin, not PUBLIC_BASE_URL`, async () => {
    const second = await openDocs(other);
    try {
      await expect(authorize(second)).resolves.toBe('Authorized');
      const { requestUrl, status, body } = await tryItOut(second, 'Content', 'get', '/api/v2/sites/{siteName}/content');
      expect({ requestUrl, status }).toEqual({
        requestUrl: `${other}/api/v2/sites/demo/content?limit=20`,
        status: '200',
      });
      expect(body).toContain('Seen from the docs');
      expect(outside).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
