import { loadConfigs } from '../../config/configs';
import { createRootLogger, PinoNestLogger } from './logging';

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
