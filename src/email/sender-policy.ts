import addressparser from 'nodemailer/lib/addressparser';

/** An address with an optional display name. */
export interface Mailbox {
  email: string;
  name?: string;
}

/** The headers a copy goes out with; the envelope sender is always MAIL_FROM's address. */
export interface SenderChoice {
  from: string;
  replyTo: string | null;
  /** The verified domain of the From address, whose key signs the copy (DKIM); null: MAIL_FROM's. */
  signingDomain: string | null;
}

/** `"Name" <address>`, the name quoted so that commas and quotes in it stay part of it. */
export function formatAddress(r: Mailbox): string {
  return r.name ? `"${r.name.replace(/["\\]/g, '\\$&')}" <${r.email}>` : r.email;
}

/** MAIL_FROM (`address` or `Name <address>`) as a mailbox: the same parser as a recorded From. */
export function parseMailFrom(text: string): Mailbox {
  return parseFromHeader(text);
}

/** A From header as recorded (`"Name" <address>` or `address`), parsed by nodemailer's address parser. */
export function parseFromHeader(header: string): Mailbox {
  const first = addressparser(header, { flatten: true })[0];
  return first?.address ? { email: first.address, name: first.name || undefined } : { email: header };
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * Who a copy is From (docs/email.md, "Who mail is From"). The site's address (or a campaign's)
 * is shown only when its domain is one the site's account verified: the operator's relay and
 * reputation never carry a domain the tenant has not proven it controls. Otherwise the mail
 * goes From MAIL_FROM's address under the sender's name (`"Demo Blog" <no-reply@operator>`, as
 * Ghost and Postmark's shared senders do) and replies go to the asked-for address, unless the
 * mail names a Reply-To of its own. An exact domain only: a subdomain is verified on its own.
 */
export function chooseSender(
  requested: { email?: string; name?: string },
  replyTo: string | null,
  verified: ReadonlySet<string>,
  mailFrom: Mailbox,
): SenderChoice {
  const operator = (name?: string): SenderChoice['from'] =>
    formatAddress({ email: mailFrom.email, name: name ?? mailFrom.name });
  const email = requested.email;
  if (email === undefined || email.toLowerCase() === mailFrom.email.toLowerCase())
    return { from: operator(requested.name), replyTo, signingDomain: null };
  const domain = domainOf(email);
  if (verified.has(domain))
    return { from: formatAddress({ email, name: requested.name }), replyTo, signingDomain: domain };
  return {
    from: operator(requested.name),
    replyTo: replyTo ?? formatAddress({ email, name: requested.name }),
    signingDomain: null,
  };
}
