import { Body, Param, Post, Query } from '@nestjs/common';
import { ApiConsumes } from '@nestjs/swagger';
import { DeclareBody, NO_BODY, routeBody } from './route-body';

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
  @DeclareBody({ optionalBody: Dto, rawBody: true })
  optional(@Body() _dto: Dto) {}

  @Post('form')
  @DeclareBody({ formBody: true })
  form(@Body() _dto: Dto) {}

  @Post('text')
  @DeclareBody({ optionalBody: Dto, rawBody: true, textBody: true })
  text(@Body() _dto: Dto) {}

  // text/plain is a JSON body's other label only: an upload stays multipart.
  @Post('textUpload')
  @DeclareBody({ upload: { type: 'object' }, textBody: true })
  textUpload() {}

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
    ['textUpload', { kind: 'multipart', optional: false, keepRaw: false, array: false, text: false }],
    ['upload', { kind: 'multipart', optional: false, keepRaw: false, array: false, text: false }],
    ['consumes', { kind: 'json', optional: false, keepRaw: false, array: false, text: false }],
    ['undeclared', NO_BODY],
  ] as const)('%s', (name, expected) => {
    expect(routeBody(Probe.prototype[name])).toEqual(expected);
  });
});
