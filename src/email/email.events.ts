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

/** Events this module writes to the outbox. */
export const EMAIL_EVENTS = defineEvents('email', {
  sent: event<EmailDeliveryPayload & { smtpMessageId: string | null }>(
    'email.sent',
    'A message was accepted by the SMTP server for one recipient',
  ),
  failed: event<EmailFailedPayload>('email.failed', 'A message could not be delivered; it will not be retried'),
});
