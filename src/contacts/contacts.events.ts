import { defineEvents, event } from '../common/outbox/events';
import type { ContactStatus } from './entities/contact.entity';

/**
 * What integrators learn of a contact message: its id, where it came from and where it stands.
 * Never the sender's name, address, phone or words: webhooks carry payloads out of Sitebase, so
 * read the contact through the API (a key) for those (docs/contacts.md).
 */
export interface ContactEventPayload {
  id: number;
  status: ContactStatus;
  source: string;
  tags: string[];
}

export interface ContactUpdatedPayload extends ContactEventPayload {
  previousStatus: ContactStatus;
}

/** Events this module writes to the outbox (docs/events.md). */
export const CONTACT_EVENTS = defineEvents('contacts', {
  created: event<ContactEventPayload>('contact.created', 'A contact message was received'),
  updated: event<ContactUpdatedPayload>(
    'contact.updated',
    'An operator changed a contact message: its status, tags, metadata or contact fields',
  ),
});
