import { existsSync } from 'node:fs';
import { Browser, chromium, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { createFreshDatabase, freePort } from '../support/databases';
import { createTenant, Tenant } from '../support/tenant';

/** Debian's Chromium (`.ci/run` installs it when it is missing); CHROMIUM_PATH names another. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Swagger UI at /docs, in headless Chromium, used as a person would: Authorize with a key, then
 * "Try it out" and "Execute" on one list route of each group, touching no field. The site's
 * name comes filled in from its example (the tenant's site is called `demo`, like the demo site
 * `npm start` makes); optional filters stay empty, so each call answers 200.
 */
describe('Swagger UI in a real browser', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does)`);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Its own database, where the name `demo` is free; the document's server is this one.
    t = await startApp({ databaseUrl: await createFreshDatabase('swagger'), env: { PUBLIC_BASE_URL: base } });
    await t.app.listen(port, '127.0.0.1');
    tenant = await createTenant(t, { siteName: 'demo' });
    await tenant.api.post('/api/v2/sites/demo/content').send({ title: 'Seen from the docs' }).expect(201);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage();
    page.setDefaultTimeout(10000);
    // Nothing leaves 127.0.0.1: any other request the page makes fails the test.
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    await page.goto(`${base}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor();
    expect(outside).toEqual([]);
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('authorizes with a key', async () => {
    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.dialog-ux');
    // The apiKey scheme's block (x-api-key); the bearer one is left empty.
    const block = dialog.locator('.auth-container').filter({ hasText: 'x-api-key' });
    await block.locator('input').fill(tenant.key);
    await block.getByRole('button', { name: 'Apply credentials' }).click();
    await block.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await expect(block.locator('h6').textContent()).resolves.toBe('Authorized');
    await dialog.locator('button.close-modal').click();
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
    const [, method, path, url] = row;
    const block = page.locator(`.opblock-${method}`).filter({
      has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
    });
    // Past a certain number of operations Swagger UI renders only the tags near the viewport:
    // scroll down from the top until the operation's block exists.
    await page.evaluate('window.scrollTo(0, 0)');
    for (let i = 0; i < 300 && (await block.count()) === 0; i++) {
      await page.evaluate('window.scrollBy(0, 300)');
      await page.waitForTimeout(20);
    }
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    await block.locator('button.execute').click();
    const live = block.locator('.live-responses-table .response');
    await live.first().waitFor();
    const requestUrl = (await block.locator('.request-url pre').textContent())?.trim() ?? '';
    const status = (
      await block.locator('.live-responses-table tbody .response-col_status').first().textContent()
    )?.trim();
    const body =
      (await block.locator('.live-responses-table .response-col_description pre').first().textContent()) ?? '';
    expect({ requestUrl, status }).toEqual({ requestUrl: expect.stringMatching(url), status: '200' });
    expect(requestUrl.startsWith(base)).toBe(true);
    if (path.endsWith('/content')) expect(body).toContain('Seen from the docs');
  });
});
