import request from 'supertest';
import { TestApp } from '../support/app';
import { ReceivedMail } from '../support/smtp';

export { campaignReaches, listWith, makeCampaign } from '../support/newsletter';

/** The path (from the server's root) of a URL in a mail. */
export const pathOf = (url: string) =>
  new URL(url.replace(/&amp;/g, '&')).pathname + new URL(url.replace(/&amp;/g, '&')).search;

export function trackingUrls(mail: ReceivedMail): { open: string; clicks: string[] } {
  const html = typeof mail.parsed.html === 'string' ? mail.parsed.html : '';
  const open = /src="([^"]*\/newsletter\/track\/open\/[^"]+)"/.exec(html)?.[1];
  const clicks = [...html.matchAll(/href="([^"]*\/newsletter\/track\/click\/[^"]+)"/g)].map((m) => m[1]);
  if (!open) throw new Error('No open pixel in the mail');
  return { open: pathOf(open), clicks: clicks.map(pathOf) };
}

/** The List-Unsubscribe URL of a raw mail (mailparser moves List-* out of parsed.headers). */
export function listUnsubscribe(mail: ReceivedMail): { url: string; post: string | undefined } {
  const unfolded = mail.raw.replace(/\r?\n[ \t]+/g, ' ');
  const url = /^List-Unsubscribe: <([^>]+)>/im.exec(unfolded)?.[1];
  const post = /^List-Unsubscribe-Post: (.+)$/im.exec(unfolded)?.[1]?.trim();
  if (!url) throw new Error('No List-Unsubscribe header');
  return { url, post };
}

export const get = (t: TestApp, path: string, ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/120.0') =>
  request(t.server).get(path).set('User-Agent', ua);
