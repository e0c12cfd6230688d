import { Body, Param, Post, Query } from '@nestjs/common';
import { ApiConsumes } from '@nestjs/swagger';
import { DeclareBody, NO_BODY, routeBody, RouteBodyOption } from './route-body';

class Dto {}

/** Handlers as controllers write them; DeclareBody is what @Route applies. */
class Probe {
  @Post('json')
  @DeclareBody()
  json(@Param() _p: Dto, @Body() _dto: Dto) {}

  @Post('none')
  @DeclareBody()
  none(@Param() _p: Dto, @Query() _q: Dto) {}

  @Post('optional')
  @DeclareBody({ optional: Dto, raw: true })
  optional(@Body() _dto: Dto) {}

  @Post('form')
  @DeclareBody({ alsoAs: 'form' })
  form(@Body() _dto: Dto) {}

  @Post('text')
  @DeclareBody({ optional: Dto, raw: true, alsoAs: 'text' })
  text(@Body() _dto: Dto) {}

  @Post('upload')
  @DeclareBody({ upload: { type: 'object' } })
  upload() {}

  // Swagger's media types say nothing to the body reader: only the route's own options do.
  @Post('consumes')
  @ApiConsumes('multipart/form-data')
  @DeclareBody()
  consumes(@Body() _dto: Dto) {}

  @Post('undeclared')
  undeclared(@Body() _dto: Dto) {}
}

describe('DeclareBody: the body kind a route declares, under its own key', () => {
  it.each([
    ['json', { kind: 'json', optional: false, keepRaw: false, array: false, text: false }],
    ['none', { kind: 'none', optional: false, keepRaw: false, array: false, text: false }],
    ['optional', { kind: 'json', optional: true, keepRaw: true, array: false, text: false }],
    ['form', { kind: 'form', optional: false, keepRaw: false, array: false, text: false }],
    ['text', { kind: 'json', optional: true, keepRaw: true, array: false, text: true }],
    ['upload', { kind: 'multipart', optional: false, keepRaw: false, array: false, text: false }],
    ['consumes', { kind: 'json', optional: false, keepRaw: false, array: false, text: false }],
    ['undeclared', NO_BODY],
  ] as const)('%s', (name, expected) => {
    expect(routeBody(Probe.prototype[name])).toEqual(expected);
  });
});

// What cannot go together does not compile: tsc checks each line below is refused.
export const IMPOSSIBLE_BODIES: RouteBodyOption[] = [
  // @ts-expect-error text/plain is a JSON body's other label: an upload is a stream, nothing else applies.
  { upload: { type: 'object' }, alsoAs: 'text' },
  // @ts-expect-error an upload's bytes are the handler's stream, not kept raw.
  { upload: { type: 'object' }, raw: true },
  // @ts-expect-error a form's fields are read as text: it keeps no raw bytes for a signature.
  { alsoAs: 'form', raw: true },
  // @ts-expect-error a form is never an array.
  { alsoAs: 'form', array: true },
  // @ts-expect-error an array body names the DTO of its items.
  { array: true, raw: true },
];
