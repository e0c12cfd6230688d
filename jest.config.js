/**
 * One run covers unit specs (src/**\/*.spec.ts) and e2e specs (test/**\/*.e2e-spec.ts).
 * test/global-setup.ts starts PostgreSQL (DATABASE_URL's server, or an embedded one), migrates
 * a template database once, and clones one database per worker, so files run in parallel.
 */
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }] },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  maxWorkers: Number(process.env.JEST_WORKERS ?? 3),
  testTimeout: 30000,
  // pg-boss and the outbox keep timers; the app is closed in afterAll, so this only guards leaks.
  forceExit: true,
};
