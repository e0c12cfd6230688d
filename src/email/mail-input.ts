import { BadRequestProblem, ValidationProblem } from '../common/errors/problems';
import { RecipientKind } from './entities/email-message.entity';
import { MailSecretValues } from './mail-secrets';
import type { MailSourceRef } from './mail-sources';

/**
 * What a mail to send is (EmailService.send and its callers in other modules), and the checks of
 * its recipients and extra headers.
 */

export interface MailRecipient {
  email: string;
  name?: string;
}

/**
 * One mail: to up to 50 recipients, from a template (`templateType`, the site's published one or
 * the default; or `templateId`) with `data`, or given as `subject` with `html` and/or `text`.
 */
export interface MailInput {
  to: MailRecipient | MailRecipient[];
  cc?: MailRecipient[];
  bcc?: MailRecipient[];
  replyTo?: MailRecipient;
  /**
   * The sender, when not the site's (a campaign's own); a field left out comes from the site's.
   * An address at a domain the account has not verified goes out From MAIL_FROM (sender-policy.ts).
   */
  from?: { email?: string; name?: string };
  templateType?: string;
  templateId?: number;
  data?: Record<string, unknown>;
  subject?: string;
  html?: string;
  text?: string;
  tags?: string[];
  /**
   * Headers every copy carries beside the standard ones, such as a campaign's `List-Unsubscribe`
   * and `List-Unsubscribe-Post` (RFC 8058). Names must be `X-…` or `List-…`; values one line.
   */
  headers?: Record<string, string>;
  /**
   * Secret values the mail shows as `mailSecret(name)` placeholders in its data, subject, body or
   * headers (a campaign's own rendered content and `List-Unsubscribe`): stored sealed, filled in
   * only in the copy that is sent (docs/email.md, "What is stored"). The variables a template type
   * marks `secret: true` are sealed so without this. Set by modules only; the API's send cannot.
   */
  secrets?: MailSecretValues;
  /**
   * A mail that asks the person for their consent (the newsletter's double opt-in confirmation):
   * it goes to an address suppressed by a complaint or an operator, since only the person's
   * confirmation lifts a complaint (docs/deliverability.md), never to one that bounced. Set by
   * modules only; the API's send cannot.
   */
  consent?: true;
  /**
   * A copy whose body is its source's (mail-sources.ts: a campaign's, for one subscription): it is
   * recorded without one, its subject rendered from this mail; its body, text and headers are
   * rendered from the source when it is sent or shown. One recipient. Set by modules only.
   */
  source?: MailSourceRef;
}

/** At most this many recipients (to, cc and bcc together) in one mail. */
export const MAX_RECIPIENTS = 50;

const HEADER_NAME = /^(X|List)-[A-Za-z0-9-]{1,64}$/;

/** Extra headers a module may set: only `X-…` and `List-…` names, values on one line. */
export function checkHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || /[\r\n]/.test(value) || value.length > 2000)
      throw new BadRequestProblem('invalid_mail', `Header ${JSON.stringify(name.slice(0, 80))} is not allowed`);
  }
  return { ...headers };
}

export interface Recipient extends MailRecipient {
  kind: RecipientKind;
}

export function recipientsOf(mail: MailInput): Recipient[] {
  const to = Array.isArray(mail.to) ? mail.to : [mail.to];
  const all: Recipient[] = [
    ...to.map((r) => ({ ...r, kind: 'to' as const })),
    ...(mail.cc ?? []).map((r) => ({ ...r, kind: 'cc' as const })),
    ...(mail.bcc ?? []).map((r) => ({ ...r, kind: 'bcc' as const })),
  ];
  if (to.length === 0) throw new ValidationProblem([{ path: 'to', message: 'must name at least one recipient' }]);
  if (all.length > MAX_RECIPIENTS)
    throw new ValidationProblem([
      { path: 'to', message: `at most ${MAX_RECIPIENTS} recipients in all (to, cc and bcc); got ${all.length}` },
    ]);
  return all;
}
