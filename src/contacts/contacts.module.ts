import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { EmailModule } from '../email/email.module';
import { ContactsDataOwner } from './contacts-data.owner';
import { ContactsMailTypes } from './contacts-mail-types';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { ContactEntity } from './entities/contact.entity';

/**
 * The contact inbox of each site (docs/contacts.md): public submissions, the team's mail
 * (`contacts.received`, registered here), operator triage, and erasure by address for the
 * users module.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ContactEntity]), AccountModule, EmailModule],
  controllers: [ContactsController],
  providers: [ContactsRepository, ContactsService, ContactsMailTypes, ContactsDataOwner],
  exports: [ContactsService],
})
export class ContactsModule {}
