import { loadConfigs } from '../../config/configs';
import { createRootLogger, PinoNestLogger, PRETTY } from './logging';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createRootLogger(loadConfigs({ LOG_LEVEL: level }).logging, {
    write: (l: string) => void lines.push(JSON.parse(l)),
  });
  return { nest: new PinoNestLogger(logger), lines };
}

describe('PinoNestLogger', () => {
  it("puts Nest's start-up chatter (module and route mapping) at debug, so info shows what matters", () => {
    const info = capture('info');
    info.nest.log('Mapped {/api/v2/sites, GET} route', 'RouterExplorer');
    info.nest.log('ContentController {/api/v2/sites/:siteName/content}:', 'RoutesResolver');
    info.nest.log('AppModule dependencies initialized', 'InstanceLoader');
    info.nest.log('Applied migrations: X', 'Database');
    expect(info.lines.map((l) => [l.level, l.context, l.msg])).toEqual([[30, 'Database', 'Applied migrations: X']]);

    const debug = capture('debug');
    debug.nest.log('Mapped {/api/v2/sites, GET} route', 'RouterExplorer');
    expect(debug.lines.map((l) => [l.level, l.context])).toEqual([[20, 'RouterExplorer']]);
  });
});

describe('the terminal format (LOG_FORMAT=pretty)', () => {
  it('writes a request as one line that reads as the request, and any other entry on one line too', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { prettyFactory } = require('pino-pretty') as { prettyFactory: (o: object) => (l: object) => string };
    const pretty = prettyFactory({ ...PRETTY, colorize: false });
    const request = pretty({
      level: 30,
      time: 0,
      msg: 'request completed',
      reqId: 'r1',
      method: 'GET',
      url: '/api/v2/sites/demo/content/9',
      route: '/api/v2/sites/:siteName/content/:id',
      status: 404,
      ms: 3.1,
      site: 'demo',
    });
    expect(request.trimEnd().split('\n')).toHaveLength(1);
    expect(request).toContain('INFO: GET /api/v2/sites/demo/content/9 404 3.1 ms');
    expect(request).toContain('"reqId":"r1"');
    const other = pretty({ level: 40, time: 0, msg: 'Something', context: 'Email', err: { message: 'x' } });
    expect(other.trimEnd().split('\n')).toHaveLength(1);
    expect(other).toContain('WARN: Something');
  });
});
