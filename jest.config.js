/**
 * One run covers unit specs (src/**\/*.spec.ts) and e2e specs (test/**\/*.e2e-spec.ts).
 * test/global-setup.ts starts PostgreSQL (DATABASE_URL's server, or an embedded one), migrates
 * a template database once, and clones one database per worker, so files run in parallel.
 */
/** ES-module-only packages the code imports, with theirs. */
const ESM_ONLY = [
  '@nestjs',
  '@redocly',
  'file-type',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
  'openapi-typescript',
  'pg-boss',
  'serialize-error',
  'non-error',
  'juice',
  'entities',
  'postcss-nesting',
  '@csstools',
  'parse-json',
  'index-to-position',
  'change-case',
  'supports-color',
];

/**
 * One factor for every time limit of the run (test/support/time-scale.ts): given, or from the
 * load when the run starts: 3 on an idle machine (limits catch hangs; a loaded moment later in
 * the run must not trip them), up to 6 when another job keeps its cores busy.
 * Workers inherit it through the environment.
 */
const os = require('node:os');
const TIME_SCALE =
  Number(process.env.TEST_TIME_SCALE) || Math.min(6, Math.max(3, (2 * os.loadavg()[0]) / os.availableParallelism()));
process.env.TEST_TIME_SCALE = String(TIME_SCALE);

/**
 * With TEST_GROUPS=1 a run takes the e2e files in groups that share one module
 * registry (test/support/groups.js); a run of named files runs the files themselves.
 */
const GROUPED = process.env.TEST_GROUPS === '1';
if (GROUPED && !process.env.JEST_WORKER_ID) require('./test/support/groups').writeGroups(__dirname);

/** @type {import('jest').Config} */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: [
    '<rootDir>/src/**/*.spec.ts',
    GROUPED ? '<rootDir>/test/.groups/*.e2e-group.js' : '<rootDir>/test/**/*.e2e-spec.ts',
  ],
  testSequencer: '<rootDir>/test/support/sequencer.js',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }],
    // ES-module-only dependencies: Node 20.19+ require()s them, jest's own loader cannot, so
    // they are compiled to CommonJS for the tests (docs/upgrades.md).
    '^.+\\.m?js$': [
      'babel-jest',
      {
        babelrc: false,
        configFile: false,
        plugins: [
          require.resolve('./test/support/esm-shims/babel-drop-create-require.js'),
          require.resolve('./test/support/esm-shims/babel-hoist-lazy-require.js'),
          'babel-plugin-transform-import-meta',
          '@babel/plugin-transform-dynamic-import',
          '@babel/plugin-transform-modules-commonjs',
        ],
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper: {
    '^(\\.|\\.\\.)/(common/)?typeorm-compat\\.js$': '<rootDir>/test/support/esm-shims/nestjs-typeorm-compat.js',
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Every answer of an app a test starts is checked against its OpenAPI document (docs/testing.md).
  setupFilesAfterEnv: ['<rootDir>/test/support/response-check.setup.ts'],
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // jest's default reporter, printing a failure shared by several tests of a file once.
  reporters: ['<rootDir>/test/support/once-reporter.js', '<rootDir>/test/support/summary-reporter.js'],
  // Twice the cores (2 cores: 4 workers, 548 s against 3 workers' 607 s here): much of an e2e
  // file waits (on PostgreSQL, polls, mail and webhook peers), and another file fills that time.
  maxWorkers: Number(process.env.JEST_WORKERS ?? Math.min(8, 2 * os.availableParallelism())),
  // Scaled by TEST_TIME_SCALE in the setup file (a config that varied would miss the transform cache).
  testTimeout: 30000,
  // pg-boss and the outbox keep timers; the app is closed in afterAll, so this only guards leaks.
  forceExit: true,
};
