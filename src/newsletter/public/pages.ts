import { createHash } from 'node:crypto';

/**
 * The small pages people see when they open a link from a mail (docs/newsletter.md, "Pages"):
 * server-rendered, no script, no third-party asset, one inline style allowed by its hash in the
 * page's Content-Security-Policy. Every value is HTML-escaped; forms post without JavaScript.
 */
const STYLE = `body{margin:0;background:#f4f4f5;font:16px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#18181b}
main{max-width:32rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px}
h1{font-size:1.4rem;margin:0 0 1rem}ul{list-style:none;padding:0}li{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.6rem 0;border-bottom:1px solid #e4e4e7}
button{font:inherit;padding:.4rem .9rem;border-radius:6px;border:1px solid #a1a1aa;background:#fff;cursor:pointer}
button.primary{background:#b91c1c;border-color:#b91c1c;color:#fff}button.confirm{background:#1d4ed8;border-color:#1d4ed8;color:#fff}.status{color:#52525b;font-size:.9rem}
.notice{background:#ecfdf5;border:1px solid #6ee7b7;padding:.6rem .9rem;border-radius:6px}
button:focus-visible{outline:3px solid #2563eb;outline-offset:2px}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The policy of these pages: nothing but the page's own style and forms posting to this origin. */
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(siteTitle: string, title: string, body: string): string {
  const site = escapeHtml(siteTitle);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · ${site}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="status">${site}</p>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
}

export interface MessagePage {
  siteTitle: string;
  title: string;
  message: string;
  /** A link back to the preferences, when the person has one. */
  preferencesPath?: string;
}

/** A page that says one thing: confirmed, expired, invalid. */
export function messagePage(p: MessagePage): string {
  const link = p.preferencesPath
    ? `<p><a href="${escapeHtml(p.preferencesPath)}">Manage your subscriptions</a></p>`
    : '';
  return page(p.siteTitle, p.title, `<p role="status">${escapeHtml(p.message)}</p>${link}`);
}

export interface PreferencesList {
  id: number;
  name: string;
  status: 'pending' | 'active' | 'unsubscribed';
}

export interface PreferencesPage {
  siteTitle: string;
  email: string;
  token: string;
  /** Where the forms post: the unsubscribe route, relative to this origin. */
  action: string;
  lists: PreferencesList[];
  notice?: string;
}

const STATUS_TEXT: Record<PreferencesList['status'], string> = {
  active: 'Subscribed',
  pending: 'Waiting for your confirmation',
  unsubscribed: 'Not subscribed',
};

/** The lists of one address, a "Leave" button for each it is on, and "Leave all". */
export function preferencesPage(p: PreferencesPage): string {
  const hidden = `<input type="hidden" name="token" value="${escapeHtml(p.token)}">`;
  const action = escapeHtml(p.action);
  const rows = p.lists
    .map((l) => {
      const name = escapeHtml(l.name);
      const leave =
        l.status === 'unsubscribed'
          ? ''
          : `<form method="post" action="${action}">${hidden}<input type="hidden" name="listId" value="${l.id}">` +
            `<button type="submit" aria-label="Leave ${name}">Leave</button></form>`;
      return `<li><span><strong>${name}</strong><br><span class="status">${STATUS_TEXT[l.status]}</span></span>${leave}</li>`;
    })
    .join('\n');
  const anyLeft = p.lists.some((l) => l.status !== 'unsubscribed');
  const notice = p.notice ? `<p class="notice" role="status">${escapeHtml(p.notice)}</p>` : '';
  const body = `${notice}<p>Mail for <strong>${escapeHtml(p.email)}</strong>.</p>
<ul aria-label="Your lists">
${rows || '<li>You are on no list.</li>'}
</ul>
${
  anyLeft
    ? `<form method="post" action="${action}">${hidden}<input type="hidden" name="all" value="true"><button class="primary" type="submit">Unsubscribe from all</button></form>`
    : ''
}`;
  return page(p.siteTitle, 'Your subscriptions', body);
}

export interface ReconsentPage {
  siteTitle: string;
  token: string;
  /** Where the button posts: the confirm route, relative to this origin. */
  action: string;
  /** The lists the address asked for (pending). */
  listNames: string[];
}

/**
 * What a re-consent link opens (docs/deliverability.md, "Only the person lifts a complaint"):
 * opening it changes nothing; the button posts the token (in the body, never the URL), and only
 * that post lifts the complaint. A mail scanner that opens links does not press buttons.
 */
export function reconsentPage(p: ReconsentPage): string {
  const site = escapeHtml(p.siteTitle);
  const lists = p.listNames.length > 0 ? escapeHtml(p.listNames.join(', ')) : 'its mail';
  const body = `<p>A mail from ${site} to this address was reported as spam, so ${site} sends it nothing.</p>
<p>Press the button only if you want to receive <strong>${lists}</strong> from ${site} again.</p>
<form method="post" action="${escapeHtml(p.action)}"><input type="hidden" name="token" value="${escapeHtml(p.token)}"><button class="confirm" type="submit">Yes, send me this mail again</button></form>
<p class="status">If you did not ask for this, close this page: nothing changes.</p>`;
  return page(p.siteTitle, 'Receive this mail again?', body);
}
