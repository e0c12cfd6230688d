import { openJson, sealJson } from '../common/crypto/seal';
import type { PartFault } from '../common/templates/liquid';
import type { MailParts, RenderedMail } from './email-renderer';
import type { EmailTemplateType } from './template-types';

/**
 * Secrets in mail (docs/email.md, "What is stored"): a sign-in code, a confirmation link, a
 * subscriber's preferences and unsubscribe links. A copy is rendered and stored with each secret
 * value replaced by its placeholder, `[redacted:<name>]`, so no answer that shows stored mail
 * shows a working code or link; the values are sealed beside the copy (`sealed_secrets`, AES-256-GCM
 * under a server key, read only by the delivery job) and filled in when the copy is sent, then
 * cleared. A template type marks its secret variables `secret: true` in its schema; a module that
 * renders part of a mail itself (a campaign's content, its `List-Unsubscribe`) puts placeholders
 * there (`mailSecret(name)`) and gives the values in the mail's `secrets`.
 */
export type MailSecretValues = Record<string, string>;

/** The server key the values are sealed with (common/crypto/server-keys.ts). */
export const MAIL_SECRETS_KEY = 'mail-secrets';

/** A secret's name: a variable's, or one a module chooses. */
export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/**
 * A placeholder in a stored copy, as written or URL-encoded (a template's `url_encode`, a link
 * put in another link's query). Matched in any case: a text part made from the HTML upper-cases
 * headings. HTML escaping and CSS inlining leave it whole.
 */
// No length bound in the pattern (recheck's fuzzer flagged the bounded form now and then, and
// proves this one linear); a name longer than SECRET_NAME allows matches no value and stays.
const PLACEHOLDER = /\[redacted:([A-Za-z][A-Za-z0-9_]*)\]|%5Bredacted%3A([A-Za-z][A-Za-z0-9_]*)%5D/gi;

/** What a stored copy shows in place of the secret `name`. */
export function mailSecret(name: string): string {
  if (!SECRET_NAME.test(name)) throw new Error(`Mail secret name ${JSON.stringify(name)} is not a name`);
  return `[redacted:${name}]`;
}

const declared = new WeakMap<EmailTemplateType, readonly string[]>();

/** The variables a type marks `secret: true` (top level; each a string, checked at registration). */
export function secretVariables(type: EmailTemplateType): readonly string[] {
  let names = declared.get(type);
  if (!names) {
    names = Object.entries(type.variables.properties)
      .filter(([, schema]) => schema.secret === true)
      .map(([name]) => name);
    declared.set(type, names);
  }
  return names;
}

/** Throws when a type's secret marks are not on top-level string variables with names of SECRET_NAME. */
export function checkSecretMarks(type: EmailTemplateType): void {
  for (const [name, schema] of Object.entries(type.variables.properties)) {
    if (schema.secret === undefined) continue;
    if (schema.secret !== true || schema.type !== 'string' || !SECRET_NAME.test(name))
      throw new Error(`Template type ${type.type}: secret variable ${name} must be a string marked secret: true`);
  }
}

/**
 * A send's data with each secret variable of its type replaced by its placeholder, and the secret
 * values: those variables' and the ones the caller gave (`given`). Null when there are none.
 */
export function redactData(
  type: EmailTemplateType | null,
  data: Record<string, unknown> | undefined,
  given: MailSecretValues | undefined,
): { data: Record<string, unknown> | undefined; secrets: MailSecretValues | null } {
  const secrets: MailSecretValues = {};
  const names = new Set<string>();
  const add = (name: string, value: string) => {
    if (!SECRET_NAME.test(name)) throw new Error(`Mail secret name ${JSON.stringify(name)} is not a name`);
    // Placeholders match in any case: two names that differ only in case would be one.
    if (names.has(name.toLowerCase())) throw new Error(`Mail secret ${name} is given twice`);
    names.add(name.toLowerCase());
    secrets[name] = value;
  };
  for (const [name, value] of Object.entries(given ?? {})) add(name, value);
  let out = data;
  const variables = type ? secretVariables(type) : [];
  for (const name of variables) {
    // A string: checkSecretMarks made sure the type says so, and the send's data was checked against it.
    const value = data?.[name];
    if (typeof value !== 'string') continue;
    add(name, value);
    out = { ...out, [name]: mailSecret(name) };
  }
  return { data: out, secrets: names.size > 0 ? secrets : null };
}

/** What a copy is made of when sent: the parts the secrets are filled into. */
export interface CopyParts {
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string> | null;
}

/**
 * The copy as its recipient gets it: each placeholder replaced by its value, HTML-escaped in the
 * HTML (as a Liquid output is), as is in the text part, and on one line in the subject and
 * headers (as a rendered subject is); a URL-encoded placeholder by the value URL-encoded. A
 * placeholder of no value given stays as it is.
 */
export function revealCopy<T extends CopyParts>(copy: T, secrets: MailSecretValues): T {
  const values = new Map(Object.entries(secrets).map(([name, value]) => [name.toLowerCase(), value]));
  const fill = (text: string, shape: (value: string) => string) =>
    text.replace(PLACEHOLDER, (whole, name: string | undefined, encoded: string | undefined) => {
      const value = values.get((name ?? encoded!).toLowerCase());
      if (value === undefined) return whole;
      // Encoded as liquidjs's url_encode does; what it makes needs no HTML escaping.
      return name === undefined ? encodeURIComponent(value).replace(/%20/g, '+') : shape(value);
    });
  return {
    ...copy,
    subject: fill(copy.subject, oneLine),
    html: fill(copy.html, escapeHtml),
    text: fill(copy.text, (v) => v),
    headers: copy.headers
      ? Object.fromEntries(Object.entries(copy.headers).map(([name, value]) => [name, fill(value, oneLine)]))
      : null,
  };
}

/** Binds the sealed values to their mail: they do not open as another's. */
export function secretsContext(siteId: number, batchId: string): string {
  return `email_messages:${siteId}:${batchId}`;
}

export function sealSecrets(key: Buffer, secrets: MailSecretValues, context: string): string {
  return sealJson(key, secrets, context);
}

export function openSecrets(key: Buffer, sealed: string, context: string): MailSecretValues {
  const value = openJson(key, sealed, context);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('Not mail secrets');
  return value as MailSecretValues;
}

/** What a stored copy is, as the delivery job reads it. */
export interface StoredCopy {
  siteId: number;
  batchId: string;
  subject: string;
  html: string;
  text: string;
  extraHeaders: Record<string, string> | null;
  sealedSecrets: string | null;
}

/**
 * The copy with its sealed codes and links filled in, as its recipient gets it; null when they
 * cannot be opened (the server's secret changed, the value was altered): the copy then fails
 * rather than going out with placeholders.
 */
export function withSecrets<T extends StoredCopy>(m: T, key: Buffer | null): T | null {
  if (!m.sealedSecrets) return m;
  if (!key) return null;
  try {
    const secrets = openSecrets(key, m.sealedSecrets, secretsContext(m.siteId, m.batchId));
    const filled = revealCopy({ subject: m.subject, html: m.html, text: m.text, headers: m.extraHeaders }, secrets);
    return { ...m, subject: filled.subject, html: filled.html, text: filled.text, extraHeaders: filled.headers };
  } catch {
    return null;
  }
}

/**
 * A template's faults with its type's secret variables: a part that changes one before output (a
 * filter such as `slice` or `url_encode`, a test of its length) would send the placeholder so
 * changed, not the value. Each secret is tried alone with the sample data: the part rendered with
 * the placeholder and then filled must equal the part rendered with the value. The text part is
 * compared only when the template has its own (one made from the HTML wraps lines by length).
 */
export async function secretFaults(
  render: (parts: MailParts, data: Record<string, unknown>) => Promise<RenderedMail>,
  parts: MailParts,
  type: EmailTemplateType,
  sample: Record<string, unknown>,
): Promise<PartFault[]> {
  const names = secretVariables(type).filter((name) => typeof sample[name] === 'string');
  if (names.length === 0) return [];
  const real = await render(parts, sample);
  const faults: PartFault[] = [];
  for (const name of names) {
    const value = sample[name] as string;
    const filled = revealCopy(
      { ...(await render(parts, { ...sample, [name]: mailSecret(name) })), headers: null },
      { [name]: value },
    );
    const fields: Array<keyof MailParts> = parts.text === null ? ['subject', 'html'] : ['subject', 'html', 'text'];
    for (const field of fields)
      if (filled[field] !== real[field])
        faults.push({
          path: field,
          message:
            `changes \`${name}\`, a secret variable, before it is output: write it as it is ({{ ${name} }}); ` +
            'its value is filled in only when the mail is sent',
          limit: false,
        });
  }
  return faults;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** The escapes of liquidjs's `escape`, which every output of an HTML part goes through. */
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };

function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}
