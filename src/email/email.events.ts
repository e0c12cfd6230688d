import { defineEvents, event } from '../common/outbox/events';

export interface EmailDeliveryPayload {
  messageId: number;
  batchId: string;
  to: string;
  templateType: string | null;
  tags: string[];
}

export interface EmailFailedPayload extends EmailDeliveryPayload {
  error: string;
}

export interface EmailSuppressionPayload {
  id: number;
  email: string;
  reason: 'bounced' | 'complained' | 'manual';
  note: string | null;
}

export interface EmailSuppressionLiftedPayload extends EmailSuppressionPayload {
  /** `operator` (the site's key) or `person` (a confirmed re-subscription). */
  by: 'operator' | 'person';
  /** Why it was lifted: the operator's words, or `confirmed` for the person's. */
  liftReason: string;
}

/** Events this module writes to the outbox. */
export const EMAIL_EVENTS = defineEvents('email', {
  sent: event<EmailDeliveryPayload & { smtpMessageId: string | null }>(
    'email.sent',
    'A message was accepted by the SMTP server for one recipient',
  ),
  failed: event<EmailFailedPayload>('email.failed', 'A message could not be delivered; it will not be retried'),
  suppressionCreated: event<EmailSuppressionPayload>(
    'email.suppression.created',
    'An operator suppressed an address of the site: mail to it is recorded failed and not sent',
  ),
  suppressionLifted: event<EmailSuppressionLiftedPayload>(
    'email.suppression.lifted',
    'A suppression was lifted (by the operator, or by the person confirming a subscription): mail goes to the address again',
  ),
});
