import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { controllerPaths, handlerArgs, handlerHttpCode, handlerMethod, handlerPaths } from './nest-metadata';

class Dto {}

@Controller('probes')
class Probe {
  @Get(':id')
  get(@Param() _p: Dto, @Query() _q: Dto, @Param('id') _id: string) {}

  @Post(['a', 'b'])
  @HttpCode(200)
  post(@Body() _b: Dto) {}

  helper() {}
}

describe("reads of Nest's route metadata", () => {
  it('name each parameter of a handler by what it is bound to', () => {
    const args = handlerArgs(Probe, 'get').sort((a, b) => a.index - b.index);
    expect(args).toEqual([
      { kind: 'param', index: 0, data: undefined },
      { kind: 'query', index: 1, data: undefined },
      { kind: 'param', index: 2, data: 'id' },
    ]);
    expect(handlerArgs(Probe, 'post')).toEqual([{ kind: 'body', index: 0, data: undefined }]);
    expect(handlerArgs(Probe, 'helper')).toEqual([]);
  });

  it('read a handler’s verb and paths, and nothing for another method', () => {
    expect(handlerMethod(Probe.prototype.get)).toBe(0);
    expect(handlerPaths(Probe.prototype.get)).toEqual([':id']);
    expect(handlerPaths(Probe.prototype.post)).toEqual(['a', 'b']);
    expect(handlerMethod(Probe.prototype.helper)).toBeUndefined();
    expect(handlerPaths(Probe.prototype.helper)).toBeUndefined();
  });

  it('read a controller’s path and a handler’s @HttpCode', () => {
    expect(controllerPaths(Probe)).toEqual(['probes']);
    expect(controllerPaths(Dto)).toBeUndefined();
    expect(handlerHttpCode(Probe.prototype.post)).toBe(200);
    expect(handlerHttpCode(Probe.prototype.get)).toBeUndefined();
  });

  it('stop on a route argument shaped otherwise than Nest 12 records it', () => {
    class Odd {
      odd() {}
    }
    Reflect.defineMetadata('__routeArguments__', { body: { index: 0 } }, Odd, 'odd');
    expect(() => handlerArgs(Odd, 'odd')).toThrow(/Odd\.odd: Nest's route argument "body" is not shaped/);
  });
});
