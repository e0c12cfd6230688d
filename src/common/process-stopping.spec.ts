import { markProcessStopping, processStopping, unlessStopping } from './process-stopping';

describe('unlessStopping', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports a lost connection half a second later while the process runs, and not when a stop signal comes meanwhile', () => {
    const running = { report: jest.fn(), quiet: jest.fn() };
    unlessStopping(running.report, running.quiet);
    expect(running.report).not.toHaveBeenCalled();
    jest.advanceTimersByTime(500);
    expect([running.report.mock.calls.length, running.quiet.mock.calls.length]).toEqual([1, 0]);

    // PostgreSQL ended the connection first; the group's SIGINT reaches this process just after.
    const raced = { report: jest.fn(), quiet: jest.fn() };
    unlessStopping(raced.report, raced.quiet);
    jest.advanceTimersByTime(100);
    markProcessStopping();
    expect(processStopping()).toBe(true);
    jest.advanceTimersByTime(400);
    expect([raced.report.mock.calls.length, raced.quiet.mock.calls.length]).toEqual([0, 1]);

    const after = { report: jest.fn(), quiet: jest.fn() };
    unlessStopping(after.report, after.quiet);
    expect([after.report.mock.calls.length, after.quiet.mock.calls.length]).toEqual([0, 1]);
  });
});
