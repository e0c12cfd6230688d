import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addImport, registerMigration } from '../../database/migration-file';
import { ModuleNames, rename } from './names';

/**
 * One edit of a file outside the module: lines put beside a `new:module: <slot>` marker line, or
 * an import after the file's last one. The lines are written for the sample and renamed.
 */
export interface Registration {
  file: string;
  /** What it registers, for the summary. */
  what: string;
  /** The marker's slot (`new:module: <slot>`): the lines go above it, or below with `below`. */
  slot?: string;
  below?: boolean;
  lines?: string[];
  imports?: string[];
}

export interface Options {
  description: string;
  /** Reads for keys only: no optional-key routes, so the group stays out of PUBLISHABLE_PERMISSIONS. */
  publishable: boolean;
  lifecycle: boolean;
}

/** Every registration a module of the CRUD template needs outside its folder (docs/modules.md). */
export function registrations(options: Options): Registration[] {
  const list: Registration[] = [
    {
      file: 'src/app.module.ts',
      what: 'FEATURE_MODULES: the module, before the administration',
      slot: 'feature modules above',
      lines: ['  SampleThingsModule,'],
      imports: ["import { SampleThingsModule } from './sample-things/sample-things.module';"],
    },
    {
      file: 'src/common/openapi/openapi.ts',
      what: "TAGS: the document's tag",
      slot: 'tags above',
      lines: [`  ['Sample things', ${JSON.stringify(options.description)}],`],
    },
    {
      file: 'src/common/auth/permissions.ts',
      what: 'PERMISSION_GROUPS: its group, sample-things:read and :write',
      slot: 'permission groups above',
      lines: ["  'sample-things',"],
    },
    {
      file: 'test/support/resource-fixtures.ts',
      what: 'resource fixtures: one published sample thing, and the id its paths take',
      slot: 'fixtures above',
      lines: [
        '  ids.sampleThing = await made(',
        "    await tenant.api.post(`${site}/sample-things`).send({ title: `Fixture${n}`, status: 'published' }),",
        '  );',
      ],
    },
    {
      file: 'test/support/resource-fixtures.ts',
      what: '',
      slot: 'path ids below',
      below: true,
      lines: ["  if (path.includes('/{siteName}/sample-things/')) return ids.sampleThing;"],
    },
    {
      file: 'test/foundation/tenant-isolation.e2e-spec.ts',
      what: 'tenant isolation: what its list holds',
      slot: 'list kinds above',
      lines: ["    'sample-things': 'sampleThing',"],
    },
    {
      file: 'test/foundation/events-catalog.e2e-spec.ts',
      what: 'the events catalogue: a step causing each of its events',
      slot: 'steps above',
      lines: [
        '  // sample-things',
        '  {',
        "    does: 'create a sample thing (POST …/sample-things)',",
        "    emits: ['sample_thing.created'],",
        '    run: async (ctx) => {',
        '      const url = `/api/v2/sites/${ctx.a.siteName}/sample-things`;',
        "      ctx.made.sampleThingId = (await call(ctx.a.api.post(url).send({ title: 'Spring opening' }), 201)).id as number;",
        '    },',
        '  },',
        '  {',
        "    does: 'publish it (PATCH …/sample-things/:id)',",
        "    emits: ['sample_thing.updated', 'sample_thing.published'],",
        '    run: async (ctx) => {',
        "      const url = `/api/v2/sites/${ctx.a.siteName}/sample-things/${id(ctx, 'sampleThingId')}`;",
        "      await call(ctx.a.api.patch(url).send({ status: 'published' }), 200);",
        '    },',
        '  },',
        ...(options.lifecycle
          ? [
              '  {',
              "    does: 'archive it (PATCH …/sample-things/:id)',",
              "    emits: ['sample_thing.updated', 'sample_thing.archived'],",
              '    run: async (ctx) => {',
              "      const url = `/api/v2/sites/${ctx.a.siteName}/sample-things/${id(ctx, 'sampleThingId')}`;",
              "      await call(ctx.a.api.patch(url).send({ status: 'archived' }), 200);",
              '    },',
              '  },',
            ]
          : []),
        '  {',
        "    does: 'delete it (DELETE …/sample-things/:id)',",
        "    emits: ['sample_thing.deleted'],",
        '    run: async (ctx) => {',
        "      const url = `/api/v2/sites/${ctx.a.siteName}/sample-things/${id(ctx, 'sampleThingId')}`;",
        '      await call(ctx.a.api.delete(url), 204);',
        '    },',
        '  },',
      ],
    },
    {
      file: 'test/foundation/shaped-reads-sql.e2e-spec.ts',
      what: 'the shaped reads: each shape of its list and get (the SQL snapshot follows)',
      slot: 'cases above',
      lines: [
        "    ['sample things, anonymous', () => get(SampleThingsRepository).list(site, page({}), false)],",
        '    [',
        "      'sample things, with a key and every filter, after a cursor',",
        '      () =>',
        '        get(SampleThingsRepository).list(',
        '          site,',
        "          page({ status: 'draft' as const, createdFrom: at, createdTo: at }, byDate),",
        '          true,',
        '        ),',
        '    ],',
        "    ['sample thing by id', () => get(SampleThingsRepository).find(site, 1, true)],",
        "    ['sample thing by slug, published only', () => get(SampleThingsRepository).find(site, 'a-slug', false)],",
      ],
      imports: ["import { SampleThingsRepository } from '../../src/sample-things/sample-things.repository';"],
    },
  ];
  if (options.publishable)
    list.push({
      file: 'src/common/auth/permissions.ts',
      what: 'PUBLISHABLE_PERMISSIONS: sample-things:read (its reads are for anyone)',
      slot: 'publishable reads above',
      lines: ["      'sample-things:read',"],
    });
  return list;
}

/** Makes `r` in the project at `root`, renamed for `names`; throws naming the marker it lacks. */
export function apply(root: string, r: Registration, names: ModuleNames): void {
  const path = join(root, r.file);
  let text = readFileSync(path, 'utf8');
  if (r.slot) {
    const marker = `new:module: ${r.slot}`;
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.includes(marker));
    if (at < 0) throw new Error(`${r.file} has no line with "${marker}": put it back where the registration goes`);
    lines.splice(r.below ? at + 1 : at, 0, ...r.lines!.map((l) => rename(l, names)));
    text = lines.join('\n');
  }
  for (const line of r.imports ?? []) text = addImport(text, rename(line, names), r.file);
  writeFileSync(path, text);
}

/** The module's migration, rendered from the template at `timestamp`, and its line in migrations/index.ts. */
export function addMigration(root: string, template: string, names: ModuleNames, timestamp: number): string {
  const className = `${names.pascal}${timestamp}`;
  const stem = `${timestamp}-${names.kebab}`;
  const source = rename(template, names).replaceAll(`${names.pascal}1795700000000`, className);
  const dir = join(root, 'src/database/migrations');
  writeFileSync(join(dir, `${stem}.ts`), source);
  const index = join(dir, 'index.ts');
  writeFileSync(index, registerMigration(readFileSync(index, 'utf8'), className, stem));
  return `src/database/migrations/${stem}.ts`;
}
