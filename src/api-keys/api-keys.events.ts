import { defineEvents, event } from '../common/outbox/events';

export interface ApiKeyCreatedPayload {
  id: number;
  name: string;
  /** `secret` or `publishable`. */
  kind: 'secret' | 'publishable';
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
  created: event<ApiKeyCreatedPayload>('api_key.created', 'An API key (secret or publishable) was created'),
  revoked: event<ApiKeyRevokedPayload>('api_key.revoked', 'An API key was revoked; it stopped working at once'),
  rolled: event<ApiKeyRolledPayload>(
    'api_key.rolled',
    'An API key was rolled: it has a new secret, and the one it replaced works until `previousExpiresAt`',
  ),
});
