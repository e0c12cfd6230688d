import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AccountEntity } from '../common/tenancy/entities/account.entity';

@Injectable()
export class AccountsService {
  createAccount(em: EntityManager, name: string): Promise<AccountEntity> {
    return em.save(em.create(AccountEntity, { name, status: 'active' }));
  }

  async isEmpty(em: EntityManager): Promise<boolean> {
    return !(await em.exists(AccountEntity));
  }
}
