import { Get } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { ApiController, Route, ROUTE_OPTIONS } from './route.decorator';

describe('@Route and @ApiController', () => {
  it('refuses a controller with a handler that has no @Route', () => {
    expect(() => {
      @ApiController('api/v2/sites/:siteName/things', 'Things')
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
    @ApiController('api/v2/sites/:siteName/things/:id/parts', 'Things')
    class PartsController {
      @Get()
      @Route({ auth: 'account-key', summary: 'List parts', noContent: true, problems: [409] })
      list(): void {}
    }
    const handler = PartsController.prototype.list;
    expect(Reflect.getMetadata(ROUTE_OPTIONS, handler)).toMatchObject({ auth: 'account-key', summary: 'List parts' });
    expect(Reflect.getMetadata(DECORATORS.API_SECURITY, handler)).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(Object.keys(Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) as object)).toEqual([
      '204',
      '401',
      '403',
      '409',
    ]);
    // The path's parameters and their problems are the controller's.
    const params = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) as Array<{ name: string }>).map(
      (p) => p.name,
    );
    expect(params.sort()).toEqual(['id', 'siteName']);
    expect(Object.keys(Reflect.getMetadata(DECORATORS.API_RESPONSE, PartsController) as object)).toEqual([
      '400',
      '404',
    ]);
  });
});
