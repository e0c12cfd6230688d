import { EntityManager, EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';
import { NotFoundProblem } from '../errors/problems';

/** The site a request acts on, resolved by the auth guard from `siteName` / `site_name`. */
export interface SiteContext {
  id: number;
  name: string;
  accountId: number;
}

/** Loads a row of this site by id; another site's id answers 404 like a missing one. */
export async function findInSiteOrFail<E extends ObjectLiteral & { id: number; siteId: number }>(
  em: EntityManager,
  entity: EntityTarget<E>,
  site: SiteContext,
  id: number,
  what = 'Resource',
  options: { lock?: boolean } = {},
): Promise<E> {
  const row = await em.findOne(entity, {
    where: { id, siteId: site.id } as FindOptionsWhere<E>,
    ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!row) throw new NotFoundProblem(what);
  return row;
}
