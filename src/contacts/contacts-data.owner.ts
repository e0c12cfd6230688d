import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { ContactEntity } from './entities/contact.entity';

/** Account deletion (API.md §8): the contact inbox of the account's sites. */
@Injectable()
export class ContactsDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // Nothing refers to contacts; before sites.
    this.registry.register(tablesOwner('contacts', 330, [{ resource: 'contacts', entity: ContactEntity }]));
  }
}
