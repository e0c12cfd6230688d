import type { EmailTemplateType } from './template-types';

/**
 * The template types of the modules that send mail. They are declared here, with the email
 * module, until each module exists and registers its own in its onModuleInit (docs/email.md,
 * "Adding a template type"): the module then takes its entries out of this list (orders did).
 */

/**
 * A plain, responsive layout; the <style> block is inlined when a mail is rendered. Modules that
 * register their own types use it too (`mailLayout`, re-exported by email.service.ts).
 */
export function layout(body: string, footer = 'Sent by {{ site.title }}.'): string {
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { margin: 0; padding: 0; background: #f4f4f5; font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; color: #18181b; }
  .wrap { max-width: 560px; margin: 0 auto; padding: 24px; }
  .card { background: #ffffff; border-radius: 8px; padding: 32px; }
  h1 { font-size: 20px; margin: 0 0 16px; }
  p { font-size: 15px; line-height: 1.6; margin: 0 0 16px; }
  .button { display: inline-block; background: #2563eb; color: #ffffff; text-decoration: none; padding: 12px 20px; border-radius: 6px; font-weight: 600; }
  .code { font-size: 28px; letter-spacing: 6px; font-weight: 700; }
  .muted { color: #71717a; font-size: 13px; }
  table.items { width: 100%; border-collapse: collapse; margin: 0 0 16px; }
  table.items td { padding: 6px 0; border-bottom: 1px solid #e4e4e7; font-size: 14px; }
</style>
</head>
<body>
<div class="wrap">
<div class="card">
${body}
</div>
<p class="muted">${footer}</p>
</div>
</body>
</html>`;
}

export const BUILTIN_TEMPLATE_TYPES: EmailTemplateType[] = [
  {
    type: 'newsletter.confirmation',
    module: 'newsletter',
    // Anyone may subscribe any address: nothing the subscriber wrote (a name) goes to an address
    // not yet confirmed (docs/newsletter.md, "Mail").
    description:
      'Asks a new subscriber to confirm their address (double opt-in); it carries nothing the subscriber wrote.',
    variables: {
      type: 'object',
      properties: {
        listName: { type: 'string', description: 'The list subscribed to' },
        confirmUrl: { type: 'string', format: 'uri', secret: true, description: 'Opens the confirmation' },
      },
      required: ['listName', 'confirmUrl'],
      additionalProperties: false,
    },
    sample: { listName: 'Weekly digest', confirmUrl: 'https://demo.example/confirm/abc123' },
    defaultTemplate: {
      subject: 'Confirm your subscription to {{ listName }}',
      html: layout(`<h1>One more step</h1>
<p>Please confirm that you want to receive <strong>{{ listName }}</strong> from {{ site.title }}.</p>
<p><a class="button" href="{{ confirmUrl }}">Confirm my subscription</a></p>
<p class="muted">If you did not ask for this, ignore this message: you will not be subscribed.</p>`),
    },
  },
  {
    type: 'newsletter.campaign',
    module: 'newsletter',
    description: 'A campaign sent to a list; the campaign supplies its own HTML body.',
    variables: {
      type: 'object',
      properties: {
        subject: { type: 'string' },
        contentHtml: { type: 'string', description: "The campaign's HTML (trusted: written by the site's editors)" },
        preheader: { type: 'string', description: 'Preview text shown by mail clients' },
        unsubscribeUrl: {
          type: 'string',
          format: 'uri',
          secret: true,
          description: "The subscriber's preferences page, where they leave one list or all",
        },
      },
      required: ['subject', 'contentHtml', 'unsubscribeUrl'],
      additionalProperties: false,
    },
    sample: {
      subject: 'This week on Demo Blog',
      contentHtml: '<h1>Hello readers</h1><p>Three stories we liked this week.</p>',
      preheader: 'Three stories we liked',
      unsubscribeUrl: 'https://demo.example/unsubscribe/abc123',
    },
    defaultTemplate: {
      subject: '{{ subject }}',
      html: layout(
        `{% if preheader %}<span style="display:none">{{ preheader }}</span>{% endif %}
{{ contentHtml | raw }}`,
        'You receive this because you subscribed to {{ site.title }}. <a href="{{ unsubscribeUrl }}">Unsubscribe</a>.',
      ),
    },
  },
  {
    type: 'users.otp',
    module: 'users',
    description: 'A one-time sign-in code for a site user.',
    variables: {
      type: 'object',
      properties: {
        code: { type: 'string', secret: true, description: 'The one-time code' },
        expiresInMinutes: { type: 'integer', minimum: 1 },
        userName: {
          type: 'string',
          description: 'A sign-in code to a verified user’s own address only; never in an email-change code',
        },
      },
      required: ['code', 'expiresInMinutes'],
      additionalProperties: false,
    },
    sample: { code: '482913', expiresInMinutes: 10, userName: 'Ada' },
    defaultTemplate: {
      // No code in the subject: notifications and mail listings show subjects to whoever looks.
      subject: 'Your sign-in code for {{ site.title }}',
      html: layout(`<h1>Your sign-in code</h1>
<p>{% if userName %}Hello {{ userName }}, here{% else %}Here{% endif %} is your code for {{ site.title }}:</p>
<p class="code">{{ code }}</p>
<p class="muted">It expires in {{ expiresInMinutes }} minutes. If you did not try to sign in, ignore this message.</p>`),
    },
  },
  {
    type: 'users.otp_limit',
    module: 'users',
    description: 'Tells a verified site user, once a day, that their address had its daily share of sign-in codes.',
    variables: {
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, description: 'Codes an address may be sent in a day' },
        until: { type: 'string', description: 'When codes may be sent again (`2026-01-02 08:00 UTC`)' },
      },
      required: ['limit', 'until'],
      additionalProperties: false,
    },
    sample: { limit: 20, until: '2026-01-02 08:00 UTC' },
    defaultTemplate: {
      subject: 'Sign-in codes for {{ site.title }} are paused',
      html: layout(`<h1>Many sign-in codes were asked for</h1>
<p>{{ limit }} sign-in codes were asked for your address at {{ site.title }} today, the most a day allows. No more will be sent until {{ until }}.</p>
<p class="muted">If it was not you, ignore this message: nobody can sign in without a code from this mailbox.</p>`),
    },
  },
  {
    type: 'custom',
    module: 'email',
    description: 'Any mail an integration composes: its subject and HTML body are variables.',
    variables: {
      type: 'object',
      properties: {
        subject: { type: 'string' },
        body: { type: 'string', description: 'HTML, sent as given (trusted: the caller holds a secret key)' },
      },
      required: ['subject', 'body'],
      additionalProperties: true,
    },
    sample: { subject: 'A note from Demo Blog', body: '<p>Hello from the team.</p>' },
    defaultTemplate: { subject: '{{ subject }}', html: layout('{{ body | raw }}') },
  },
];
