import { Injectable, OnModuleInit } from '@nestjs/common';
import { EmailTemplateTypes, mailLayout } from '../../email/email.service';

/** The confirmation mail's type (declared with the email module's built-in types). */
export const CONFIRMATION_MAIL = 'newsletter.confirmation';
export const WELCOME_MAIL = 'newsletter.welcome';

/**
 * The welcome mail, registered here (docs/email.md, "Adding a template type"): sent once a
 * person's memberships become active by their own action (a confirmed link, or a single opt-in
 * list), with the link to their preferences page, as Ghost and Mailchimp do.
 */
@Injectable()
export class NewsletterMailTypes implements OnModuleInit {
  constructor(private readonly types: EmailTemplateTypes) {}

  onModuleInit(): void {
    this.types.register({
      type: WELCOME_MAIL,
      module: 'newsletter',
      description: 'Welcomes a subscriber whose lists became active, with the link to manage them.',
      variables: {
        type: 'object',
        properties: {
          listNames: { type: 'array', items: { type: 'string' }, description: 'The lists just joined' },
          preferencesUrl: {
            type: 'string',
            format: 'uri',
            secret: true,
            description: 'Their lists; leave one or all',
          },
          subscriberName: {
            type: 'string',
            description: 'When the subscriber gave one, and only after they confirmed their address',
          },
        },
        required: ['listNames', 'preferencesUrl'],
        additionalProperties: false,
      },
      sample: {
        listNames: ['Weekly digest'],
        preferencesUrl: 'https://demo.example/api/v2/sites/demo/newsletter/preferences/m.1.abc.def',
        subscriberName: 'Ada',
      },
      defaultTemplate: {
        subject: 'Welcome to {{ site.title }}',
        html: mailLayout(
          `<h1>You are subscribed{% if subscriberName %}, {{ subscriberName }}{% endif %}</h1>
<p>You will now receive {% for name in listNames %}<strong>{{ name }}</strong>{% unless forloop.last %}, {% endunless %}{% endfor %} from {{ site.title }}.</p>
<p><a class="button" href="{{ preferencesUrl }}">Manage my subscriptions</a></p>`,
          'You receive this because you subscribed to {{ site.title }}. <a href="{{ preferencesUrl }}">Unsubscribe or change your lists</a>.',
        ),
      },
    });
  }
}
