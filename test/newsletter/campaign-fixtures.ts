import request from 'supertest';
import { eventually, TestApp } from '../support/app';
import { ReceivedMail } from '../support/smtp';
import { Tenant } from '../support/tenant';
import { makeList, nl } from './newsletter-fixtures';

/** A private list whose members are exactly these addresses, active with consent (no mail is sent). */
export async function listWith(x: Tenant, name: string, emails: string[]): Promise<number> {
  const list = await makeList(x, { name, doubleOptIn: false, visibility: 'private' });
  await x.api.post(nl(x, '/subscriptions/sync')).send({ listId: list.id, emails, consent: true }).expect(200);
  return list.id;
}

export async function makeCampaign(x: Tenant, body: Record<string, unknown>): Promise<{ id: number; slug: string }> {
  const res = await x.api
    .post(nl(x, '/campaigns'))
    .send({ name: 'Digest', subject: 'Hello {{ subscriber.name }}', ...body })
    .expect(201);
  return res.body as { id: number; slug: string };
}

/** Waits for a campaign's status. */
export function campaignReaches(x: Tenant, id: number, status: string, timeoutMs = 30000) {
  return eventually(async () => {
    const res = await x.api.get(nl(x, `/campaigns/${id}`)).expect(200);
    return res.body.status === status ? (res.body as Record<string, unknown>) : undefined;
  }, timeoutMs);
}

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
