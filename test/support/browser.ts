import { existsSync } from 'node:fs';
import { Browser, chromium, Page } from 'playwright-core';

/** Debian's Chromium (`npm test` installs it when missing), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium as the tests drive it: nothing of its own reaches the network (no background
 * requests, updates or QUIC), and `hosts` (names the test serves) resolve to 127.0.0.1.
 */
export function launchChromium(hosts: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(hosts.length > 0 ? [`--host-resolver-rules=${hosts.map((h) => `MAP ${h} 127.0.0.1`).join(', ')}`] : []),
    ],
  });
}

/**
 * A page that loads only from `base`: any other request is aborted and its URL added to `outside`
 * (a page a person opens must not call a third party).
 */
export async function confinedPage(browser: Browser, base: string, outside: string[]): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10000);
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base)) return route.continue();
    outside.push(url);
    return route.abort();
  });
  return page;
}
