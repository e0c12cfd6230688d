import { defineEvents, event } from '../common/outbox/events';

export interface SenderDomainEventPayload {
  id: number;
  domain: string;
}

/** Events this module writes to the outbox (account scope: a domain is the account's). */
export const SENDER_EVENTS = defineEvents('senders', {
  created: event<SenderDomainEventPayload>(
    'sender_domain.created',
    "A sender domain was added to the account; its sites' mail goes From MAIL_FROM until it is verified",
  ),
  verified: event<SenderDomainEventPayload>(
    'sender_domain.verified',
    "A sender domain's DNS records were found: the account's sites may send From it, DKIM-signed",
  ),
  deleted: event<SenderDomainEventPayload>(
    'sender_domain.deleted',
    'A sender domain was removed; mail From it goes From MAIL_FROM again',
  ),
});
