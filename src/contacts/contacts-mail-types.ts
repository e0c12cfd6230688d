import { Injectable, OnModuleInit } from '@nestjs/common';
import { EmailTemplateTypes, mailLayout } from '../email/email.service';

export const CONTACT_RECEIVED_MAIL = 'contacts.received';

/**
 * The mail the contacts module sends (docs/email.md, "Template types"): the team's alert for a
 * new message. In the HTML part every variable is escaped; the message keeps its line breaks.
 */
@Injectable()
export class ContactsMailTypes implements OnModuleInit {
  constructor(private readonly types: EmailTemplateTypes) {}

  onModuleInit(): void {
    this.types.register({
      type: CONTACT_RECEIVED_MAIL,
      module: 'contacts',
      description: "Tells the site's team that someone sent the contact form.",
      variables: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          email: { type: 'string', format: 'email' },
          message: { type: 'string' },
          submittedAt: { type: 'string', format: 'date-time' },
          subject: { type: 'string', description: 'When the sender gave one' },
          phone: { type: 'string', description: 'When the sender gave one' },
          company: { type: 'string', description: 'When the sender gave one' },
          source: { type: 'string', description: 'Which form or page sent it (`contact-form`)' },
          contactId: {
            type: 'integer',
            minimum: 1,
            description: 'The contact id (`GET …/contacts/{id}`), for a link into your own tools',
          },
        },
        required: ['name', 'email', 'message', 'submittedAt'],
        additionalProperties: false,
      },
      sample: {
        name: 'Grace Hopper',
        email: 'grace@example.com',
        message: 'Hello! Do you ship to Canada?',
        submittedAt: '2026-11-24T10:00:00.000Z',
        subject: 'Shipping to Canada',
        company: 'Navy',
        source: 'contact-form',
        contactId: 42,
      },
      defaultTemplate: {
        subject: 'New message from {{ name }} on {{ site.title }}{% if subject %}: {{ subject }}{% endif %}',
        html: mailLayout(`<h1>New contact message</h1>
<p><strong>{{ name }}</strong> &lt;{{ email }}&gt; wrote on {{ submittedAt }}:</p>
{% if subject %}<p><strong>{{ subject }}</strong></p>{% endif %}
<p>{{ message | escape | newline_to_br | raw }}</p>
{% if phone or company %}<p class="muted">{% if company %}{{ company }}{% endif %}{% if phone and company %} · {% endif %}{% if phone %}{{ phone }}{% endif %}</p>{% endif %}
<p class="muted">Reply to this mail to answer {{ name }}.{% if source %} Sent through {{ source }}.{% endif %}</p>`),
        text:
          'New contact message\n\n{{ name }} <{{ email }}> wrote on {{ submittedAt }}:\n' +
          '{% if subject %}\n{{ subject }}\n{% endif %}\n{{ message }}\n' +
          '{% if company %}\nCompany: {{ company }}{% endif %}{% if phone %}\nPhone: {{ phone }}{% endif %}\n',
      },
    });
  }
}
