import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { sql } from '../../database/sql';
import { deriveKey } from './seal';

/**
 * Keys of the server itself (docs/security.md, "Secrets and logs"): each purpose has a random
 * secret in `server_secrets`, made on first use by whichever instance comes first and shared by
 * all, and the key is derived from it (`sitebase:<purpose>:v1`). Read once per process.
 */
@Injectable()
export class ServerKeys {
  private readonly keys = new Map<string, Promise<Buffer>>();

  constructor(private readonly dataSource: DataSource) {}

  key(purpose: string): Promise<Buffer> {
    let key = this.keys.get(purpose);
    if (!key) {
      key = this.secret(purpose).then((secret) => deriveKey(secret, `sitebase:${purpose}:v1`));
      // A failed read (the database away) is tried again by the next caller.
      key.catch(() => this.keys.delete(purpose));
      this.keys.set(purpose, key);
    }
    return key;
  }

  private async secret(name: string): Promise<Buffer> {
    await sql(this.dataSource, `INSERT INTO server_secrets (name, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      name,
      randomBytes(32),
    ]);
    const { rows } = await sql<{ secret: Buffer }>(
      this.dataSource,
      `SELECT secret FROM server_secrets WHERE name = $1`,
      [name],
    );
    return rows[0].secret;
  }
}
