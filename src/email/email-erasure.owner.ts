import { Injectable, OnModuleInit } from '@nestjs/common';
import { UserDataRegistry } from '../common/deletion/user-data.registry';
import { EmailErasureRepository } from './email-erasure.repository';

/** A site user's erasure: the mail sent to their address, and the events naming it. */
@Injectable()
export class EmailErasureOwner implements OnModuleInit {
  constructor(
    private readonly registry: UserDataRegistry,
    private readonly repository: EmailErasureRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'email',
      order: 500,
      preview: async (em, site, user) => [
        {
          resource: 'email_messages',
          count: await this.repository.countOfAddress(em, site.id, user.email),
          action: 'delete',
        },
      ],
      erase: (em, site, user) => this.repository.eraseAddress(em, site.id, user.email),
    });
  }
}
