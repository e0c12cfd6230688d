import { simpleParser } from 'mailparser';
import type { BounceKind } from '../entities/email-bounce.entity';

/** What a bounce or complaint says, whatever carried it (a DSN, an ARF report, a provider's event). */
export interface BounceReport {
  kind: BounceKind;
  /** `dsn`, `arf`, or the provider's name. */
  source: string;
  /** RFC 3463 status (`5.1.1`), when given. */
  status: string | null;
  diagnostic: string | null;
  /** The address the report names (Final-Recipient, Original-Rcpt-To): informative only. */
  recipient: string | null;
  /** What the report quotes of the original message: how it is found without a VERP token. */
  original: OriginalHeaders;
}

export interface OriginalHeaders {
  /** Message-ID, without its angle brackets. */
  messageId: string | null;
  /** X-Sitebase-Message-Id: the message's row, trusted only when its Message-ID matches. */
  sitebaseId: number | null;
  /** Return-Path of the original: its VERP address, as the receiving MTA recorded it. */
  returnPath: string | null;
}

/** Feedback types (RFC 5965) that are a person's complaint; `not-spam` and the rest are not. */
const COMPLAINT_TYPES = new Set(['abuse', 'fraud']);
const ORIGINAL_TYPES = new Set(['message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers']);
const STATUS = /^([245])\.(\d{1,3})\.(\d{1,3})$/;

/** Fields of a header-like block: lower-cased names, unfolded values, the first of each name. */
function fieldsOf(block: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const m = /^([A-Za-z0-9-]+)[ \t]*:(.*)$/.exec(line);
    if (m && !fields.has(m[1].toLowerCase())) fields.set(m[1].toLowerCase(), m[2].trim());
  }
  return fields;
}

/** The groups of a message/delivery-status or message/feedback-report body (blank-line separated). */
function groupsOf(text: string): Array<Map<string, string>> {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((g) => fieldsOf(g))
    .filter((g) => g.size > 0);
}

/** `rfc822; ada@example.com` -> `ada@example.com`. */
function addressOf(value: string | undefined): string | null {
  if (!value) return null;
  const address = value.includes(';') ? value.slice(value.indexOf(';') + 1) : value;
  const clean = address.trim().replace(/^<|>$/g, '').toLowerCase();
  return clean.includes('@') ? clean.slice(0, 320) : null;
}

/** The headers of the quoted original (the header block of a message/rfc822 or text/rfc822-headers part). */
export function originalHeaders(text: string | null): OriginalHeaders {
  if (!text) return { messageId: null, sitebaseId: null, returnPath: null };
  const head = text.replace(/\r\n/g, '\n').split(/\n\n/)[0];
  const fields = fieldsOf(head);
  const id = fields.get('x-sitebase-message-id');
  return {
    messageId: fields.get('message-id')?.replace(/^<|>$/g, '').trim() || null,
    sitebaseId: id && /^[1-9]\d{0,15}$/.test(id) ? Number(id) : null,
    returnPath: fields.get('return-path')?.replace(/^<|>$/g, '').trim() || null,
  };
}

/**
 * The kind of a failure from its RFC 3463 status (`5.x.x` hard, `4.x.x` soft), else from the
 * SMTP code in the diagnostic (`smtp; 550 …`); null when neither says.
 */
export function kindOfStatus(status: string | null, diagnostic: string | null): 'hard' | 'soft' | null {
  const klass = status ? STATUS.exec(status)?.[1] : undefined;
  if (klass === '5') return 'hard';
  if (klass === '4') return 'soft';
  const code = diagnostic ? /(?:^|[;\s])([45])\d\d(?:[\s-]|$)/.exec(diagnostic)?.[1] : undefined;
  return code === '5' ? 'hard' : code === '4' ? 'soft' : null;
}

/**
 * Reads a DSN (RFC 3464: multipart/report with a message/delivery-status part) or an ARF report
 * (RFC 5965: message/feedback-report). Answers null for anything else, and for a DSN that reports
 * no failure: `delayed` means the MTA is still trying (its final failure comes later), `delivered`
 * and `relayed` are no bounce. Only the first failed recipient counts: Sitebase sends every copy
 * to one recipient.
 */
export async function parseBounceReport(raw: Buffer | string): Promise<BounceReport | null> {
  const mail = await simpleParser(raw, {
    keepDeliveryStatus: true,
    ignoreEmbedded: true,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    checksumAlgo: false,
    maxChildNodes: 100,
  });
  const part = (types: Set<string>) => mail.attachments.find((a) => types.has(a.contentType.toLowerCase()));
  const quoted = part(ORIGINAL_TYPES);
  const original = originalHeaders(quoted ? quoted.content.toString('utf8') : null);

  const feedback = part(new Set(['message/feedback-report']));
  if (feedback) {
    const [fields] = groupsOf(feedback.content.toString('utf8'));
    const type = fields?.get('feedback-type')?.toLowerCase() ?? '';
    if (!COMPLAINT_TYPES.has(type)) return null;
    return {
      kind: 'complaint',
      source: 'arf',
      status: null,
      diagnostic: `feedback-type: ${type}`,
      recipient: addressOf(fields.get('original-rcpt-to') ?? fields.get('removal-recipient')),
      original,
    };
  }

  const dsn = part(new Set(['message/delivery-status', 'message/global-delivery-status']));
  if (!dsn) return null;
  // The first group is the per-message one (Reporting-MTA); recipients' groups carry an Action.
  for (const group of groupsOf(dsn.content.toString('utf8'))) {
    const action = group.get('action')?.toLowerCase();
    if (action !== 'failed') continue;
    const status = group.get('status')?.split(/\s/)[0] ?? null;
    const diagnostic = group.get('diagnostic-code')?.slice(0, 1000) ?? null;
    const kind = kindOfStatus(status, diagnostic);
    if (!kind) continue;
    return {
      kind,
      source: 'dsn',
      status: status && STATUS.test(status) ? status : null,
      diagnostic,
      recipient: addressOf(group.get('final-recipient') ?? group.get('original-recipient')),
      original,
    };
  }
  return null;
}
