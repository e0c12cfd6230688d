import { logsJson, say } from './say';

describe('say', () => {
  const captured = (format: string, level?: 'info' | 'warn') => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      say(
        'Sitebase listening on http://127.0.0.1:3000',
        { url: 'http://127.0.0.1:3000' },
        { format, level, stream: 'stderr' },
      );
      return write.mock.calls.map(([chunk]) => String(chunk)).join('');
    } finally {
      write.mockRestore();
    }
  };

  it('writes the text at a terminal and a JSON line of the log’s shape where the logs are JSON', () => {
    expect(captured('pretty')).toBe('Sitebase listening on http://127.0.0.1:3000\n');
    const line = captured('json', 'warn');
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      level: 40,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      msg: 'Sitebase listening on http://127.0.0.1:3000',
      url: 'http://127.0.0.1:3000',
    });
  });

  it('takes LOG_FORMAT as the logger does: json, pretty, or auto by whether stdout is a terminal', () => {
    expect(logsJson('json')).toBe(true);
    expect(logsJson('pretty')).toBe(false);
    expect(logsJson('auto')).toBe(process.stdout.isTTY !== true);
  });
});
