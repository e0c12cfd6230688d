import { EmailTemplateType, mailLayout } from '../email/email.service';
import { minorDigits } from '../common/money/money';
import type { OrderLineEntity } from './entities/order-line.entity';
import type { OrderEntity } from './entities/order.entity';

/** The mail orders send (docs/email.md): registered by OrdersModule when it starts. */
export const ORDER_MAIL_TYPES: EmailTemplateType[] = [
  {
    type: 'orders.confirmation',
    module: 'orders',
    description: 'Confirms an order to the customer who placed it.',
    variables: {
      type: 'object',
      properties: {
        orderNumber: { type: 'string' },
        customerName: { type: 'string' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              quantity: { type: 'integer' },
              price: { type: 'string', description: 'The unit price, formatted with its currency' },
            },
            required: ['name', 'quantity', 'price'],
          },
        },
        tax: { type: 'string', description: 'The tax, formatted; absent when there is none' },
        taxIncluded: { type: 'boolean', description: 'Whether the prices contain the tax (else it is added)' },
        total: { type: 'string', description: 'Formatted with its currency' },
        orderUrl: {
          type: 'string',
          format: 'uri',
          secret: true,
          description: 'A link to the order (it may let whoever holds it see the order: it is sealed like a code)',
        },
      },
      required: ['orderNumber', 'items', 'total'],
      additionalProperties: false,
    },
    sample: {
      orderNumber: '1042',
      customerName: 'Ada',
      items: [
        { name: 'Poster', quantity: 2, price: '€20.00' },
        { name: 'Mug', quantity: 1, price: '€12.00' },
      ],
      tax: '€10.40',
      taxIncluded: false,
      total: '€62.40',
      orderUrl: 'https://demo.example/orders/1042',
    },
    defaultTemplate: {
      subject: 'Your order {{ orderNumber }} at {{ site.title }}',
      html: mailLayout(`<h1>Thank you{% if customerName %}, {{ customerName }}{% endif %}!</h1>
<p>We received your order <strong>{{ orderNumber }}</strong>.</p>
<table class="items">{% for item in items %}<tr><td>{{ item.quantity }} × {{ item.name }}</td><td align="right">{{ item.price }}</td></tr>{% endfor %}
{% if tax %}<tr><td>{% if taxIncluded %}Tax included{% else %}Tax{% endif %}</td><td align="right">{{ tax }}</td></tr>{% endif %}
<tr><td><strong>Total</strong></td><td align="right"><strong>{{ total }}</strong></td></tr></table>
{% if orderUrl %}<p><a class="button" href="{{ orderUrl }}">View your order</a></p>{% endif %}`),
      // Written out: a text part made from the HTML runs the table's cells together.
      text: `Thank you{% if customerName %}, {{ customerName }}{% endif %}!

We received your order {{ orderNumber }}.

{% for item in items %}{{ item.quantity }} × {{ item.name }}: {{ item.price }}
{% endfor %}{% if tax %}{% if taxIncluded %}Tax included{% else %}Tax{% endif %}: {{ tax }}
{% endif %}Total: {{ total }}
{% if orderUrl %}
View your order: {{ orderUrl }}
{% endif %}
Sent by {{ site.title }}.
`,
    },
  },
  {
    type: 'orders.shipped',
    module: 'orders',
    description: 'Tells the customer a shipment of their order is on its way.',
    variables: {
      type: 'object',
      properties: {
        orderNumber: { type: 'string' },
        customerName: { type: 'string' },
        carrier: { type: 'string' },
        trackingNumber: { type: 'string' },
        trackingUrl: { type: 'string', format: 'uri' },
      },
      required: ['orderNumber', 'carrier', 'trackingNumber'],
      additionalProperties: false,
    },
    sample: {
      orderNumber: '1042',
      customerName: 'Ada',
      carrier: 'DHL',
      trackingNumber: 'JD014600003828',
      trackingUrl: 'https://tracking.example/JD014600003828',
    },
    defaultTemplate: {
      subject: 'Your order {{ orderNumber }} has shipped',
      html: mailLayout(`<h1>On its way{% if customerName %}, {{ customerName }}{% endif %}</h1>
<p>Your order <strong>{{ orderNumber }}</strong> left us with {{ carrier }}, tracking number <strong>{{ trackingNumber }}</strong>.</p>
{% if trackingUrl %}<p><a class="button" href="{{ trackingUrl }}">Track the parcel</a></p>{% endif %}`),
    },
  },
];

const formats = new Map<string, Intl.NumberFormat>();

/** Minor units as the customer reads them: `€20.00`, `¥1,500`, `KWD 1.250` (English, the currency's own digits). */
export function formatMoney(amount: number, currency: string): string {
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en', { style: 'currency', currency });
    formats.set(currency, format);
  }
  return format.format(amount / 10 ** minorDigits(currency));
}

/**
 * The `orders.confirmation` variables: unit prices, the tax when there is some, the total, and
 * the customer's name when the mail may carry it.
 */
export function confirmationData(
  order: OrderEntity,
  lines: OrderLineEntity[],
  customerName: string | null,
): Record<string, unknown> {
  const added = lines.some((l) => l.taxBehavior === 'exclusive' && l.taxAmount > 0);
  return {
    orderNumber: String(order.number),
    ...(customerName ? { customerName } : {}),
    items: lines.map((l) => ({ name: l.name, quantity: l.quantity, price: formatMoney(l.unitAmount, order.currency) })),
    ...(order.taxAmount > 0 ? { tax: formatMoney(order.taxAmount, order.currency), taxIncluded: !added } : {}),
    total: formatMoney(order.totalAmount, order.currency),
  };
}
