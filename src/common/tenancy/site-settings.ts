/**
 * What a site keeps beside its name and title, one typed section per module; a field left out
 * (or null) falls back to the configuration. New sections are added here and in UpdateSiteDto
 * (src/account/dto/site.dto.ts), validated like any input: never a free JSON bag.
 */
export interface SiteSettings {
  /** Origin of the links in this site's mail (confirm, unsubscribe, tracking); else PUBLIC_BASE_URL. */
  publicBaseUrl?: string;
  email?: EmailSettings;
  contacts?: ContactsSettings;
  orders?: OrdersSettings;
  newsletter?: NewsletterSettings;
}

/** The sender of the site's mail (docs/email.md); unset fields come from MAIL_FROM. */
export interface EmailSettings {
  fromName?: string;
  fromAddress?: string;
  replyTo?: string;
}

/** The contact inbox (docs/contacts.md): who is told of each new message; none, no mail. */
export interface ContactsSettings {
  notifyEmails?: string[];
}

/**
 * Tax of the site's orders (docs/orders.md): rates in basis points (1 % = 100), keyed by the
 * products' `taxCode`; `defaultTaxRate` for a taxed product whose code has no rate (absent: 0).
 */
export interface OrdersSettings {
  taxRates?: Record<string, number>;
  defaultTaxRate?: number;
}

/**
 * The newsletter audience (docs/newsletter.md): where a browser goes after confirming (absent: a
 * page in the site's name), and whether a deleted subscriber's address stays blocked from
 * re-import (kept as a hash).
 */
export interface NewsletterSettings {
  confirmRedirectUrl?: string;
  suppressOnDelete?: boolean;
  /** Campaign mails a minute at most (absent: NEWSLETTER_SEND_RATE_PER_MINUTE). */
  sendRatePerMinute?: number;
}
