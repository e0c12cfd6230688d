import { RequestMethod, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { controllerPaths, handlerMethod, handlerPaths } from '../../src/common/internals/nest-metadata';
import { ROUTE_OPTIONS } from '../../src/common/http/route.decorator';
import { startApp, TestApp } from '../support/app';

interface Handler {
  controller: string;
  method: string;
  verb: string;
  path: string;
}

/** Every route handler of the app, read from Nest's module container. */
function handlers(t: TestApp): Array<Handler & { fn: (...args: unknown[]) => unknown }> {
  const found: Array<Handler & { fn: (...args: unknown[]) => unknown }> = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const cls = wrapper.metatype as Type;
      const base = controllerPaths(cls)?.[0];
      const proto = cls.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const fn = proto[name];
        if (name === 'constructor' || typeof fn !== 'function') continue;
        const path = handlerPaths(fn)?.[0];
        if (path === undefined) continue;
        const verb = RequestMethod[handlerMethod(fn)!];
        found.push({ controller: cls.name, method: name, verb, path: `${base}/${path}`, fn: fn as never });
      }
    }
  }
  return found;
}

describe('Every route is declared in one place', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> };

  beforeAll(async () => {
    t = await startApp();
    doc = (await request(t.server).get('/docs/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());

  it('every handler carries @Route (auth, summary, responses and problems together)', () => {
    const all = handlers(t);
    expect(all.length).toBeGreaterThanOrEqual(48);
    const without = all.filter((h) => Reflect.getMetadata(ROUTE_OPTIONS, h.fn) === undefined);
    expect(
      without.map(
        ({ controller, method }) =>
          `${controller}.${method}: declare it with @Route({ auth, summary, ok, problems }) beside its verb ` +
          '(src/common/http/route.decorator.ts; docs/modules.md)',
      ),
    ).toEqual([]);
  });

  it('every operation of the document declares each parameter of its path', () => {
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(operations)) {
        const declared = new Set((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name));
        for (const p of params)
          if (!declared.has(p))
            missing.push(
              `${method.toUpperCase()} ${path}: ${p}: take it with @Param() of a DTO class that declares it ` +
                '(e.g. SiteIdParamDto, IdOrSlugParam in src/common/http/params.ts)',
            );
      }
    }
    expect(missing).toEqual([]);
  });
});
