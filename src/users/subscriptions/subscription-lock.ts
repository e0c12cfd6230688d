import { DataSource, EntityManager } from 'typeorm';
import { NotFoundProblem } from '../../common/errors/problems';
import { SiteContext } from '../../common/tenancy/site-context';
import { UserSubscriptionEntity } from '../entities/user-subscription.entity';

/**
 * One change of one subscription of the user, under its row lock; another's is a 404. The
 * lifecycle and the charges both go through it, so two changes of one subscription never interleave.
 */
export function changeSubscription<R>(
  dataSource: DataSource,
  site: SiteContext,
  userId: number,
  id: number,
  fn: (em: EntityManager, sub: UserSubscriptionEntity) => Promise<R>,
): Promise<R> {
  return dataSource.transaction(async (em) => {
    const sub = await em.findOne(UserSubscriptionEntity, {
      where: { id, userId, siteId: site.id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!sub) throw new NotFoundProblem('Subscription');
    return fn(em, sub);
  });
}
