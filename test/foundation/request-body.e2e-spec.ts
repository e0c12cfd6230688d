import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { IsOptional, IsString } from 'class-validator';
import { connect } from 'node:net';
import request from 'supertest';
import { Public } from '../../src/common/auth/decorators';
import { DeclareBody } from '../../src/common/http/route-body';
import { startApp, TestApp } from '../support/app';
import { expectProblem } from '../support/problem';
import { createTenant, Tenant } from '../support/tenant';

class EchoDto {
  @IsString() name: string;
  @IsOptional() data?: unknown;
}

class OptionalEchoDto {
  @IsOptional() @IsString() name?: string;
}

/**
 * Routes that exist only to exercise the body reader: JSON public and key-only, optional, none.
 * Without @Route (which would document them), each declares its body the way @Route does.
 */
@Controller('api/v2/probe')
class BodyProbeController {
  @Public()
  @Post('public')
  @HttpCode(200)
  @DeclareBody()
  open(@Body() dto: EchoDto) {
    return dto;
  }

  @Post('key')
  @HttpCode(200)
  @DeclareBody()
  key(@Body() dto: EchoDto) {
    return dto;
  }

  @Public()
  @Post('optional')
  @HttpCode(200)
  @DeclareBody({ optional: OptionalEchoDto })
  optional(@Body() dto: OptionalEchoDto) {
    return dto;
  }

  @Public()
  @Post('text')
  @HttpCode(200)
  @DeclareBody({ optional: OptionalEchoDto, alsoAs: 'text' })
  text(@Body() dto: OptionalEchoDto) {
    return dto;
  }

  @Public()
  @Post('none')
  @HttpCode(200)
  @DeclareBody()
  none() {
    return { done: true };
  }
}

@Module({ controllers: [BodyProbeController] })
class BodyProbeModule {}

/** A raw request whose body never completes: answers only come from servers that did not wait for it. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (/\r\n\r\n[\s\S]*\}$/.test(data)) {
        socket.destroy();
        resolve(data);
      }
    });
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer; got ${JSON.stringify(data)}`));
    }, 3000);
  });
}

describe('request bodies: read after the guards, JSON only where a route takes it', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startApp({ extraModules: [BodyProbeModule] });
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const json = (r: request.Test, body: string) => r.set('content-type', 'application/json').send(body);

  describe('credentials come before the body', () => {
    it('malformed JSON without a key on a key-only route is a 401, not a 400', async () => {
      expectProblem(await json(request(t.server).post('/api/v2/probe/key'), '{"name":'), 401, 'missing_credential');
      expectProblem(
        await json(request(t.server).post(`/api/v2/sites/${tenant.siteName}/content`), '{"title":'),
        401,
        'missing_credential',
      );
    });

    it('a bad charset without a key is a 401; with one, a 415', async () => {
      const send = (r: request.Test) => r.set('content-type', 'application/json; charset=klingon').send('{"name":"x"}');
      expectProblem(await send(request(t.server).post('/api/v2/probe/key')), 401, 'missing_credential');
      expectProblem(await send(tenant.api.post('/api/v2/probe/key')), 415, 'unsupported_media_type');
    });

    it('an invalid key with malformed JSON is a 401 invalid_api_key', async () => {
      expectProblem(
        await json(request(t.server).post('/api/v2/probe/key').set('x-api-key', 'sb_live_nope'), '{'),
        401,
        'invalid_api_key',
      );
    });

    it('an anonymous caller is answered before the server reads a body that never arrives', async () => {
      const port = await listen(t);
      const head =
        'POST /api/v2/probe/key HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":';
      const answer = await rawRequest(port, head);
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).toContain('"code":"missing_credential"');
    });

    it('a public route still reads bodies for anonymous callers', async () => {
      const ok = await json(request(t.server).post('/api/v2/probe/public'), '{"name":"ann"}');
      expect({ status: ok.status, body: ok.body }).toEqual({ status: 200, body: { name: 'ann' } });
      expectProblem(await json(request(t.server).post('/api/v2/probe/public'), '{"name":'), 400, 'malformed_json');
      expectProblem(await json(request(t.server).post('/api/v2/probe/public'), '{"name":1}'), 400, 'validation_failed');
    });
  });

  describe('Content-Encoding', () => {
    it.each(['gzip', 'deflate', 'br', 'x-unknown', 'gzip, identity'])(
      '%s is a 415 on any path, with or without a key',
      async (encoding) => {
        for (const r of [
          request(t.server).get('/health/ready'),
          request(t.server).post('/api/v2/no-such-route'),
          request(t.server).post('/api/v2/probe/key'),
          tenant.api.post('/api/v2/probe/key'),
          request(t.server).post(`/v1/${tenant.siteName}/pages`),
        ]) {
          const res = await json(r.set('content-encoding', encoding), '{"name":"x"}');
          expectProblem(res, 415, 'unsupported_content_encoding');
          expect(res.headers['accept-encoding']).toBe('identity');
        }
      },
    );

    it('identity, or no body at all, is fine', async () => {
      expect(
        (await json(tenant.api.post('/api/v2/probe/key').set('content-encoding', 'identity'), '{"name":"x"}')).status,
      ).toBe(200);
      expect((await request(t.server).get('/health/ready').set('content-encoding', 'gzip')).status).toBe(200);
    });
  });

  describe('media types', () => {
    it.each([
      ['text/plain', 'name=x'],
      ['application/x-www-form-urlencoded', 'name=x'],
      ['application/xml', '<name>x</name>'],
      ['multipart/form-data; boundary=b', '--b--\r\n'],
      ['application/jsonx', '{"name":"x"}'],
    ])('a JSON route refuses %s with a 415', async (type, body) => {
      expectProblem(
        await tenant.api.post('/api/v2/probe/key').set('content-type', type).send(body),
        415,
        'unsupported_media_type',
      );
    });

    it('a body without a Content-Type is a 415', async () => {
      const res = await tenant.api.post('/api/v2/probe/key').send(Buffer.from('{"name":"x"}'));
      expect(res.request.getHeader('content-type')).toBeUndefined();
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it.each(['UTF-8', 'utf8'])('application/*+json with the charset %s is JSON', async (charset) => {
      const res = await tenant.api
        .post('/api/v2/probe/key')
        .set('content-type', `application/merge-patch+json; charset=${charset}`)
        .send('{"name":"x"}');
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { name: 'x' } });
    });

    it('no body, an empty body and a blank body on a JSON route are a 400 missing_body', async () => {
      expectProblem(await tenant.api.post('/api/v2/probe/key'), 400, 'missing_body');
      expectProblem(await json(tenant.api.post('/api/v2/probe/key'), ''), 400, 'missing_body');
      expectProblem(await json(tenant.api.post('/api/v2/probe/key'), '  \n'), 400, 'missing_body');
    });

    it('a route whose body is optional reads none as {}', async () => {
      expect((await request(t.server).post('/api/v2/probe/optional')).body).toEqual({});
      expect((await json(request(t.server).post('/api/v2/probe/optional'), '')).body).toEqual({});
      expect((await json(request(t.server).post('/api/v2/probe/optional'), '{"name":"x"}')).body).toEqual({
        name: 'x',
      });
      expectProblem(
        await request(t.server).post('/api/v2/probe/optional').set('content-type', 'text/plain').send('x'),
        415,
        'unsupported_media_type',
      );
    });

    it("a route that declares alsoAs: 'text' reads JSON labelled text/plain as JSON (Amazon SNS); no other route does", async () => {
      const text = (body: string, type = 'text/plain; charset=UTF-8') =>
        request(t.server).post('/api/v2/probe/text').set('content-type', type).send(body);
      expect((await text('{"name":"x"}')).body).toEqual({ name: 'x' });
      expect((await text('{"name":"x"}', 'application/json')).body).toEqual({ name: 'x' });
      // Read and checked as JSON all the same: not JSON, or another charset, is refused.
      expectProblem(await text('name=x'), 400, 'malformed_json');
      expectProblem(await text('{"name":"x"}', 'text/plain; charset=iso-8859-1'), 415, 'unsupported_media_type');
      expectProblem(await text('{"name":"x"}', 'text/html'), 415, 'unsupported_media_type');
      expectProblem(await json(request(t.server).post('/api/v2/probe/text'), '{"name":1}'), 400, 'validation_failed');
      expectProblem(
        await request(t.server).post('/api/v2/probe/public').set('content-type', 'text/plain').send('{"name":"x"}'),
        415,
        'unsupported_media_type',
      );
    });

    it('a route that takes no body takes nothing or `{}`, and refuses fields (400) or another media type (415)', async () => {
      expect((await request(t.server).post('/api/v2/probe/none')).body).toEqual({ done: true });
      for (const body of ['{}', ' { } ', '']) {
        const res = await json(request(t.server).post('/api/v2/probe/none'), body);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ done: true });
      }
      const fields = await json(request(t.server).post('/api/v2/probe/none'), '{"publishAt":"2030-01-01","x":1}');
      expectProblem(fields, 400, 'validation_failed');
      expect(fields.body.errors).toEqual([
        { path: 'publishAt', message: 'is not accepted: this route takes no request body' },
        { path: 'x', message: 'is not accepted: this route takes no request body' },
      ]);
      expectProblem(await json(request(t.server).post('/api/v2/probe/none'), '[]'), 400, 'malformed_json');
      expectProblem(
        await request(t.server).post('/api/v2/probe/none').set('content-type', 'text/plain').send('x'),
        415,
        'unsupported_media_type',
      );
      expect((await json(request(t.server).get('/health/ready'), '{}')).status).toBe(200);
    });
  });

  describe('JSON shape', () => {
    const nested = (n: number) => `{"name":"x","data":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;

    it('32 levels are read; 33 and 1,500 are a 400 json_too_deep before validation', async () => {
      expect((await json(tenant.api.post('/api/v2/probe/key'), nested(32))).status).toBe(200);
      expectProblem(await json(tenant.api.post('/api/v2/probe/key'), nested(33)), 400, 'json_too_deep');
      expectProblem(await json(tenant.api.post('/api/v2/probe/key'), nested(1500)), 400, 'json_too_deep');
    });

    it.each(['[]', '[{"name":"x"}]', 'null', '"x"', '1', 'true'])(
      'a body of %s is not a JSON object: 400 malformed_json',
      async (body) => {
        const res = await json(tenant.api.post('/api/v2/probe/key'), body);
        expectProblem(res, 400, 'malformed_json');
        expect(res.body.detail).toBe('The request body must be a JSON object');
      },
    );

    it('prototype keys are refused at any depth like unknown fields', async () => {
      const res = await json(
        tenant.api.post('/api/v2/probe/key'),
        '{"name":"x","__proto__":{"a":1},"data":{"list":[{"constructor":1},{"prototype":2}]}}',
      );
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([
        { path: '__proto__', message: 'is not allowed' },
        { path: 'data.list.0.constructor', message: 'is not allowed' },
        { path: 'data.list.1.prototype', message: 'is not allowed' },
      ]);
    });

    it('prototype keys in a query are refused too', async () => {
      const res = await tenant.api.get('/api/v2/api-keys?constructor=1&toString=2');
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([
        { path: 'constructor', message: 'is not allowed' },
        { path: 'toString', message: 'is not allowed' },
      ]);
    });

    it('the body limit still answers 413', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
      expectProblem(await json(tenant.api.post('/api/v2/probe/key'), big), 413, 'payload_too_large');
    });

    it('a length declared over the limit is a 413 before the body arrives', async () => {
      const head = `POST /api/v2/probe/public HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${
        t.configs.http.BODY_LIMIT + 1
      }\r\n\r\n{"name":`;
      const answer = await rawRequest(await listen(t), head);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('"code":"payload_too_large"');
    });

    it('a byte order mark before the JSON is malformed JSON, as JSON.parse has it (body-parser would drop it)', async () => {
      const res = await json(request(t.server).post('/api/v2/probe/public'), '\uFEFF{"name":"x"}');
      expectProblem(res, 400, 'malformed_json');
      // A mark alone is blank, as trim() has it: no body.
      expect((await json(request(t.server).post('/api/v2/probe/optional'), '\uFEFF')).body).toEqual({});
    });
  });
});

async function listen(t: TestApp): Promise<number> {
  const address = t.server.address();
  if (address && typeof address === 'object') return address.port;
  await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
  return (t.server.address() as { port: number }).port;
}
