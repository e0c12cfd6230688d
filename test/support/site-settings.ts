import { SiteEntity } from '../../src/common/tenancy/entities/site.entity';
import type { TestApp } from './app';
import { expectProblem } from './problem';
import type { Tenant } from './tenant';

/**
 * Each of `values` (one field of the site's settings `section` each) sent in a PATCH of the site is
 * a 400 `validation_failed` naming exactly `settings.<section>.<field>`, and the site's stored
 * settings are as they were after all of them.
 */
export async function expectSettingsRefused(
  t: TestApp,
  x: Tenant,
  section: string,
  values: Array<Record<string, unknown>>,
): Promise<void> {
  const stored = async () => (await t.db.getRepository(SiteEntity).findOneByOrFail({ id: x.siteId })).settings;
  const before = await stored();
  for (const value of values) {
    const res = await x.api.patch(`/api/v2/sites/${x.siteName}`).send({ settings: { [section]: value } });
    expectProblem(res, 400, 'validation_failed');
    const paths = [...new Set((res.body.errors as Array<{ path: string }>).map((e) => e.path))];
    expect({ value, paths }).toEqual({ value, paths: Object.keys(value).map((f) => `settings.${section}.${f}`) });
  }
  expect(await stored()).toEqual(before);
}
