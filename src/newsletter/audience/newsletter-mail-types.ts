import { Injectable, OnModuleInit } from '@nestjs/common';
import { EmailTemplateTypes, mailLayout } from '../../email/email.service';

/** The confirmation mail's type (declared with the email module's built-in types). */
export const CONFIRMATION_MAIL = 'newsletter.confirmation';
export const WELCOME_MAIL = 'newsletter.welcome';
/** The confirmation mail of an address that complained: fixed (sites cannot replace it). */
export const RECONSENT_MAIL = 'newsletter.complaint_confirmation';

/**
 * The welcome mail, registered here (docs/email.md, "Adding a template type"): sent once a
 * person's memberships become active by their own action (a confirmed link, or a single opt-in
 * list), with the link to their preferences page, as Ghost and Mailchimp do.
 */
@Injectable()
export class NewsletterMailTypes implements OnModuleInit {
  constructor(private readonly types: EmailTemplateTypes) {}

  onModuleInit(): void {
    // Fixed: a site's own template could carry the link in an image (Apple Mail and Gmail fetch
    // images without a click) or to a host of its own, and so give the tenant the link that lifts
    // a complaint (docs/deliverability.md, "Only the person lifts a complaint").
    this.types.register({
      type: RECONSENT_MAIL,
      module: 'newsletter',
      fixed: true,
      description:
        'Asks an address that reported the site’s mail as spam whether it wants that mail again. Built in: ' +
        'sites cannot replace it.',
      variables: {
        type: 'object',
        properties: {
          listName: { type: 'string', description: 'The lists asked for' },
          confirmUrl: {
            type: 'string',
            format: 'uri',
            description: 'Opens the page whose button confirms',
            secret: true,
          },
        },
        required: ['listName', 'confirmUrl'],
        additionalProperties: false,
      },
      sample: {
        listName: 'Weekly digest',
        confirmUrl: 'https://api.example/api/v2/sites/demo/newsletter/confirm/r.1.abc',
      },
      defaultTemplate: {
        subject: 'Do you want mail from {{ site.title }} again?',
        html: mailLayout(`<h1>Do you want our mail again?</h1>
<p>Someone, perhaps you, asked to subscribe this address to <strong>{{ listName }}</strong> from {{ site.title }}.</p>
<p>A mail from {{ site.title }} to this address was reported as spam, so {{ site.title }} sends it nothing unless you confirm: open the page and press its button.</p>
<p><a class="button" href="{{ confirmUrl }}">Open the confirmation page</a></p>
<p class="muted">Opening the page alone changes nothing. If you did not ask for this, ignore this message: you will receive nothing more.</p>`),
      },
    });
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
