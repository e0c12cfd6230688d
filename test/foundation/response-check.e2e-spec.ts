import { Get, Module, Post, Res } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { Response } from 'express';
import request from 'supertest';
import { ApiController, Route } from '../../src/common/http/route.decorator';
import { startApp, TestApp } from '../support/app';
import { takeViolations, validatedSoFar } from '../support/response-check-store';

class ProbeDto {
  @ApiProperty()
  id!: number;
}

/** A controller that breaks its own declarations, one way per route. */
@ApiController('api/v2/response-check-probe', { tag: 'Health', permissions: 'none' })
class WrongController {
  @Get('right')
  @Route({ auth: 'public', summary: 'Answers as declared', ok: ProbeDto })
  rightWrong(): ProbeDto {
    return { id: 1 };
  }

  @Get('status')
  @Route({ auth: 'public', summary: 'Declares 200, answers 418', ok: ProbeDto })
  statusWrong(@Res({ passthrough: true }) res: Response): ProbeDto {
    res.status(418);
    return { id: 1 };
  }

  @Get('body')
  @Route({ auth: 'public', summary: 'A string id and a field the document does not have', ok: ProbeDto })
  bodyWrong(): unknown {
    return { id: 'one', secret: true };
  }

  @Get('type')
  @Route({ auth: 'public', summary: 'Text where JSON is documented', ok: ProbeDto })
  typeWrong(@Res() res: Response): void {
    res.type('text/plain').send('1');
  }

  @Post('created')
  @Route({ auth: 'public', summary: 'A 201 without Location', created: ProbeDto, idempotent: true })
  createWrong(): ProbeDto {
    return { id: 1 };
  }
}

@Module({ controllers: [WrongController] })
class WrongModule {}

/**
 * The response check (test/support/response-check.ts) fails a test whose answers break the
 * document: each route here breaks it one way, and the check names each break.
 */
describe('the response check', () => {
  let t: TestApp;
  const base = '/api/v2/response-check-probe';

  beforeAll(async () => {
    t = await startApp({ extraModules: [WrongModule] });
  });
  afterAll(() => t.close());
  afterEach(() => expect(takeViolations()).toEqual([]));

  it('lets an answer that follows the document through', async () => {
    await request(t.server).get(`${base}/right`).expect(200, { id: 1 });
    expect(takeViolations()).toEqual([]);
  });

  it('fails a status the operation does not list (a deliberately wrong status in a controller)', async () => {
    await request(t.server).get(`${base}/status`).expect(418);
    const found = takeViolations();
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('GET /api/v2/response-check-probe/status → 418');
    expect(found[0]).toContain('statusWrong 418: a status the document does not list (it lists 200, ');
    // The test's full name opens the report (a group run puts its file's name first).
    expect(found[0]).toMatch(/^\[(\S+ )?the response check fails a status the operation does not list/);
  });

  it('fails a body that breaks its schema, undocumented fields included', async () => {
    await request(t.server).get(`${base}/body`).expect(200);
    const found = takeViolations();
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('bodyWrong 200: the body breaks its documented schema');
    expect(found[0]).toContain('data/id must be number');
    expect(found[0]).toContain('must NOT have additional properties');
  });

  it('fails a content type the document does not give', async () => {
    await request(t.server).get(`${base}/type`).expect(200);
    expect(takeViolations()).toEqual([expect.stringContaining('content-type text/plain, documented application/json')]);
  });

  it('fails a 201 without Location', async () => {
    await request(t.server).post(`${base}/created`).expect(201);
    expect(takeViolations()).toEqual([expect.stringContaining('201: no location header')]);
  });

  it('checks answers given before routing (a 415) against the operation of their path', async () => {
    const before = validatedSoFar();
    await request(t.server).post(`${base}/created`).set('content-type', 'text/plain').send('x').expect(415);
    expect(validatedSoFar()).toBe(before + 1);
    // Whether the document lists 415 for it is the route's business; the answer was held against it.
    expect(takeViolations().every((v) => v.includes('createWrong 415'))).toBe(true);
  });

  it('skips what is not an operation: the document itself, unknown paths', async () => {
    const before = validatedSoFar();
    await request(t.server).get('/docs/openapi.json').expect(200);
    await request(t.server).get('/no/such/path').expect(404);
    expect(validatedSoFar()).toBe(before);
    expect(takeViolations()).toEqual([]);
  });
});
