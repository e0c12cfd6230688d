import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountDataRegistry, tablesOwner } from '../common/deletion/account-data.registry';
import { SampleThingEntity } from './entities/sample-thing.entity';

/** Account deletion: the sample things of the account's sites. */
@Injectable()
export class SampleThingsDataOwner implements OnModuleInit {
  constructor(private readonly registry: AccountDataRegistry) {}

  onModuleInit(): void {
    // Plain site data: purged with the other modules' (the order only matters for rows that
    // point at another module's table, which go before it).
    this.registry.register(tablesOwner('sample-things', 400, [{ resource: 'sample_things', entity: SampleThingEntity }]));
  }
}
