import { defineEvents, event } from '../common/outbox/events';

export interface WebhookTestPayload {
  endpointId: number;
  message: string;
}

export interface WebhookEndpointDisabledPayload {
  id: number;
  url: string;
  failingSince: string;
  lastError: string | null;
}

/**
 * Events of the webhooks module. `webhook.test` is never recorded in the outbox: the test route
 * sends it to one endpoint at once (docs/webhooks.md). It is declared so that the catalogue
 * (docs/events.md) lists what receivers may see.
 */
export const WEBHOOK_EVENTS = defineEvents('webhooks', {
  test: event<WebhookTestPayload>('webhook.test', 'A test event, sent to one endpoint by POST …/webhooks/{id}/test'),
  endpointDisabled: event<WebhookEndpointDisabledPayload>(
    'webhook.endpoint_disabled',
    'An endpoint kept failing for WEBHOOK_DISABLE_AFTER_SECONDS and was disabled; re-enable it by PATCH',
  ),
});
