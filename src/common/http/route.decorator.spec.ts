import { Body, Delete, Get, Headers, Post, Query } from '@nestjs/common';
import { ROUTE_PERMISSION } from '../auth/decorators';
import { DECORATORS } from '@nestjs/swagger';
import { SkipRateLimit } from '../rate-limit/rate-limit.guard';
import { ApiController, Route, ROUTE_OPTIONS } from './route.decorator';

const statuses = (handler: object) =>
  Object.keys(Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) as object)
    .map(Number)
    .sort((a, b) => a - b);

class ThingDto {
  name: string;
}

describe('@Route and @ApiController', () => {
  it('refuses a controller with a handler that has no @Route', () => {
    expect(() => {
      @ApiController('api/v2/sites/:siteName/things', { tag: 'Things', permissions: 'content' })
      class ThingsController {
        @Get()
        list(): string {
          return 'x';
        }
      }
      return ThingsController;
    }).toThrow('ThingsController.list has no @Route()');
  });

  it('keeps the options and declares security, status and problems together', () => {
    @ApiController('api/v2/sites/:siteName/things/:id/parts', { tag: 'Things', permissions: 'content' })
    class PartsController {
      @Get()
      @Route({ auth: 'account-key', summary: 'List parts', noContent: true, problems: [409] })
      list(): void {}
    }
    const handler = PartsController.prototype.list;
    expect(Reflect.getMetadata(ROUTE_OPTIONS, handler)).toMatchObject({ auth: 'account-key', summary: 'List parts' });
    expect(Reflect.getMetadata(DECORATORS.API_SECURITY, handler)).toEqual([{ apiKey: [] }, { bearer: [] }]);
    // Derived: 400 and 415 on every route, 404 for the path, 401/403 for the key, 405 on every
    // path, 429; 409 declared.
    expect(statuses(handler)).toEqual([204, 400, 401, 403, 404, 405, 409, 415, 429]);
    // The path's parameters and their problems are the controller's.
    const params = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) as Array<{ name: string }>).map(
      (p) => p.name,
    );
    expect(params.sort()).toEqual(['id', 'siteName']);
  });

  it('derives every problem status from the route: body, query, headers, auth, idempotency, rate limit', () => {
    @ApiController('api/v2/sites/:siteName/things', { tag: 'Things', permissions: 'content' })
    class ThingsController {
      @Get()
      @Route({ auth: 'optional-key', summary: 'List things', ok: ThingDto })
      list(@Query() _q: ThingDto): void {}

      @Post()
      @Route({ auth: 'key', summary: 'Create a thing', created: ThingDto })
      create(@Body() _b: ThingDto): void {}

      @Post(':id/publish')
      @Route({ auth: 'session', summary: 'Publish a thing', ok: ThingDto })
      publish(): void {}

      @Get(':id')
      @Route({ auth: 'user', summary: 'Get a thing', ok: ThingDto, problems: [410] })
      get(@Headers('if-none-match') _h: string): void {}
    }
    const p = ThingsController.prototype;
    // Anyone, a key shows more: 401 for a bad one, 403 for a publishable one from an origin it
    // does not allow; the site: 404; an anonymous read: 304.
    expect(statuses(p.list)).toEqual([200, 304, 400, 401, 403, 404, 405, 415, 429]);
    // A body: 400, 413, 415; Idempotency-Key: its 409.
    expect(statuses(p.create)).toEqual([201, 400, 401, 403, 404, 405, 409, 413, 415, 429]);
    // No body, but a write: `{}` only (400 for a field, 413, 415); an id in the method's path: 400, 404;
    // a POST honours Idempotency-Key unless it opts out: 409.
    expect(statuses(p.publish)).toEqual([200, 400, 401, 403, 404, 405, 409, 413, 415, 429]);
    expect(statuses(p.get)).toEqual([200, 400, 401, 403, 404, 405, 410, 415, 429]);
  });

  it.each([
    [400, 'every route'],
    [404, 'a path with parameters'],
    [409, 'a POST honouring Idempotency-Key'],
    [413, 'a body'],
    [429, 'a rate-limited route'],
  ])('refuses at start-up a route listing %s, which its shape gives (%s)', (status) => {
    expect(() => {
      @ApiController('api/v2/sites/:siteName/things', { tag: 'Things', permissions: 'content' })
      class ListingController {
        @Post()
        @Route({ auth: 'key', summary: 'Create a thing', created: ThingDto, problems: [422, status] })
        create(@Body() _b: ThingDto): void {}
      }
      return ListingController;
    }).toThrow(
      `ListingController.create lists problem ${status}, which its shape already gives (route-problems.ts): remove it from problems`,
    );
  });

  it('documents no 429 on a route that is never rate limited, nor a credential on a public one', () => {
    @ApiController('health', { tag: 'Health', permissions: 'none' })
    @SkipRateLimit()
    class ProbeController {
      @Get()
      @Route({ auth: 'public', summary: 'Live', ok: ThingDto })
      live(): void {}
    }
    // 400 and 415 are on every route: a malformed query string, a body, a Content-Encoding.
    expect(statuses(ProbeController.prototype.live)).toEqual([200, 400, 405, 415]);
  });

  it("derives each key route's permission from its group and method, unless the route names one", () => {
    @ApiController('api/v2/sites/:siteName/things', { tag: 'Things', permissions: 'media' })
    class ThingsController {
      @Get()
      @Route({ auth: 'key', summary: 'List things', ok: ThingDto })
      list(): void {}
      @Delete(':id')
      @Route({ auth: 'key', summary: 'Delete a thing', noContent: true })
      remove(): void {}
      @Post('preview')
      @Route({ auth: 'key', summary: 'Preview a thing', ok: ThingDto, permission: 'media:read' })
      preview(): void {}
      @Get('health')
      @Route({ auth: 'public', summary: 'Anyone', ok: ThingDto })
      open(): void {}
    }
    const permission = (name: 'list' | 'remove' | 'preview' | 'open') => [
      Reflect.getMetadata(ROUTE_PERMISSION, ThingsController.prototype[name]) as unknown,
      (Reflect.getMetadata(DECORATORS.API_EXTENSION, ThingsController.prototype[name]) ?? {})['x-sitebase-permission'],
    ];
    expect(permission('list')).toEqual(['media:read', 'media:read']);
    expect(permission('remove')).toEqual(['media:write', 'media:write']);
    expect(permission('preview')).toEqual(['media:read', 'media:read']);
    expect(permission('open')).toEqual([undefined, undefined]);
  });

  it('refuses at start-up a key route that resolves to no permission', () => {
    expect(() => {
      @ApiController('api/v2/sites/:siteName/things', { tag: 'Things', permissions: 'none' })
      class NoGroupController {
        @Get()
        @Route({ auth: 'key', summary: 'List things', ok: ThingDto })
        list(): void {}
      }
      return NoGroupController;
    }).toThrow('NoGroupController.list takes a key but needs no known permission');
  });

  it('reads no permission from the tag: a tag names no group', () => {
    expect(() => {
      @ApiController('api/v2/sites/:siteName/media', { tag: 'Media', permissions: 'none' })
      class TaggedController {
        @Get()
        @Route({ auth: 'key', summary: 'List things', ok: ThingDto })
        list(): void {}
      }
      return TaggedController;
    }).toThrow('TaggedController.list takes a key but needs no known permission');
  });

  it('refuses at start-up a group that none of its routes takes', () => {
    expect(() => {
      @ApiController('api/v2/sites/:siteName/things', { tag: 'Things', permissions: 'content' })
      class OpenController {
        @Get()
        @Route({ auth: 'public', summary: 'Anyone', ok: ThingDto })
        open(): void {}
        @Post('preview')
        @Route({ auth: 'key', summary: 'Preview a thing', ok: ThingDto, permission: 'content:read' })
        preview(): void {}
      }
      return OpenController;
    }).toThrow("OpenController names permissions 'content', which none of its routes takes: say permissions: 'none'");
  });
});
