import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SigningKeyEntity } from '../entities/signing-key.entity';

/** The sites' link-signing secrets (docs/modules.md): made once, by whichever caller comes first. */
@Injectable()
export class SigningKeysRepository {
  /** Stores `secret` as the site's unless it has one already. */
  async insertIfMissing(em: EntityManager, siteId: number, secret: Buffer): Promise<void> {
    await em.createQueryBuilder().insert().into(SigningKeyEntity).values({ siteId, secret }).orIgnore().execute();
  }
}
