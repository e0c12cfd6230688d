import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { UserDataRegistry } from '../common/deletion/user-data.registry';
import { ContactsService } from './contacts.service';
import { ContactEntity } from './entities/contact.entity';

/**
 * Account deletion: the contact inbox of the account's sites. A site user's erasure:
 * the messages they sent (by their address).
 */
@Injectable()
export class ContactsDataOwner implements OnModuleInit {
  constructor(
    private readonly registry: AccountDataRegistry,
    private readonly users: UserDataRegistry,
    private readonly contacts: ContactsService,
  ) {}

  onModuleInit(): void {
    // Nothing refers to contacts; before sites.
    this.registry.register(tablesOwner('contacts', 330, [{ resource: 'contacts', entity: ContactEntity }]));
    this.users.register({
      name: 'contacts',
      order: 300,
      preview: async (em, site, user) => [
        {
          resource: 'contacts',
          count: await em.count(ContactEntity, { where: { siteId: site.id, email: user.email } }),
          action: 'delete',
        },
      ],
      erase: async (em, site, user) => ({ contacts: await this.contacts.eraseByEmail(em, site, user.email) }),
    });
  }
}
