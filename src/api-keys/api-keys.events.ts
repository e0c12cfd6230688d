import { defineEvents, event } from '../common/outbox/events';

export interface ApiKeyCreatedPayload {
  id: number;
  name: string;
}

export interface ApiKeyRevokedPayload {
  id: number;
}

export interface ApiKeyRolledPayload {
  id: number;
  previousExpiresAt: string;
}

/** Events this module writes to the outbox. */
export const API_KEY_EVENTS = defineEvents('api-keys', {
  created: event<ApiKeyCreatedPayload>('api_key.created', 'A secret API key was created'),
  revoked: event<ApiKeyRevokedPayload>('api_key.revoked', 'A secret API key was revoked; it stopped working at once'),
  rolled: event<ApiKeyRolledPayload>(
    'api_key.rolled',
    'A secret API key was rolled: it has a new secret, and the one it replaced works until `previousExpiresAt`',
  ),
});
