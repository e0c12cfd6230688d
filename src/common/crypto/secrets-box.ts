import { Injectable } from '@nestjs/common';
import { SecretsConfig } from '../../config/secrets.config';
import { secretsKeyBytes } from '../../config/setting-shapes';
import { deriveKey, openJson, sealJson } from './seal';

/**
 * Secrets a tenant gives the server to use on its behalf (a site's Stripe keys), sealed at rest
 * with a key from the environment (SECRETS_ENCRYPTION_KEY), never from the database: whoever
 * reads a dump or a backup without the environment reads no secret (docs/security.md). Each value
 * is bound to its row and field (`context`): a sealed value copied into another site's row does
 * not open there.
 */
@Injectable()
export class SecretsBox {
  private readonly key: Buffer | null;

  constructor(config: SecretsConfig) {
    const bytes = config.SECRETS_ENCRYPTION_KEY ? secretsKeyBytes(config.SECRETS_ENCRYPTION_KEY) : null;
    this.key = bytes ? deriveKey(bytes, 'sitebase:secrets-box:v1') : null;
  }

  /** Whether a key is configured: without one nothing can be sealed or opened. */
  get ready(): boolean {
    return this.key !== null;
  }

  seal(value: string, context: string): string {
    return sealJson(this.requireKey(), value, context);
  }

  /** The value seal() sealed for this context; throws if the key or the context differ. */
  open(sealed: string, context: string): string {
    const value = openJson(this.requireKey(), sealed, context);
    if (typeof value !== 'string') throw new Error('Not a sealed secret');
    return value;
  }

  private requireKey(): Buffer {
    // Callers check `ready` first and answer their own problem.
    if (!this.key) throw new Error('SECRETS_ENCRYPTION_KEY is not set');
    return this.key;
  }
}
