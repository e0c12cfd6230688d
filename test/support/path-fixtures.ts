import type { Operation } from './openapi-operations';
import { paramValue, ResourceFixtures } from './resource-fixtures';

/**
 * Every path parameter of `operations` that test/support/resource-fixtures.ts has no value for,
 * each as a sentence saying what to add there: what the sweeps over every operation (tenant
 * isolation, input hardening) need before they can call a new module's routes.
 */
export function pathParamsWithoutFixture(f: ResourceFixtures, operations: Operation[]): string[] {
  return operations.flatMap((op) =>
    op.pathParams.flatMap((name) => {
      let why: string;
      try {
        const value = paramValue(f, op, name);
        if (typeof value === 'string') return [];
        why = `paramValue gave ${typeof value}`;
      } catch (err) {
        why = (err as Error).message;
      }
      const add =
        name === 'id'
          ? `make one of the resource in seedResources through the API (ids.<resource> = await made(await ` +
            'tenant.api.post(`${site}/<resource>`).send({ … }))) and return it from idFor for paths holding ' +
            `'/<resource>/', before any shorter path it also holds`
          : `make the resource it names in seedResources through the API (ids.<resource> = …) and add ` +
            `\`case '${name}': return String(ids.<resource>);\` to paramValue's switch`;
      return [`${op.label}: {${name}} has no fixture (${why}): in test/support/resource-fixtures.ts, ${add}`];
    }),
  );
}
