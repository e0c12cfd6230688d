// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const INTERNALS =
  "A library's internals are reached only in src/common/internals/, fenced by the versions they were written " +
  'for (docs/performance.md, "Fenced fast paths").';

/** Paths inside packages whose entry points are their interface. */
const DEEP_IMPORTS = [
  'typeorm/*',
  'class-validator/*',
  'class-transformer/*',
  '@nestjs/*/*',
  'express/*',
  'router/*',
  'pg/*',
  'pg-pool/*',
];

/** Names of libraries' internals (private members, undocumented storage, hard-coded metadata keys). */
const PRIVATE_NAMES = [
  [
    'MemberExpression[property.name=/^(expressionMap|escapeQueryWithParameters)$/]',
    "TypeORM's query builder internals",
  ],
  ["MemberExpression[property.name='master']", "TypeORM's pg pool (driver.master): poolOf() in internals/pg-pool.ts"],
  ["MemberExpression[property.name='_handlesMethod']", "Express's route internals: internals/express-router.ts"],
  [
    "MemberExpression[property.name='stack'][object.property.name=/^_?router$/]",
    "Express's route table: internals/express-router.ts",
  ],
  ["Identifier[name='getMetadataStorage']", "class-validator's storage: internals/class-validator-metadata.ts"],
  ['Literal[value=/^swagger\\//]', "@nestjs/swagger's metadata keys: its exported DECORATORS"],
].map(([selector, what]) => ({ selector, message: `${what}. ${INTERNALS}` }));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'bench/**',
      'eslint.config.mjs',
      'jest.config.js',
      'test/support/summary-reporter.js',
      'test/support/once-reporter.js',
      'test/support/groups.js',
      'test/support/sequencer.js',
      'test/.groups/**',
      'test/support/esm-shims/**',
      'test/generated/**',
      'clients/typescript/dist/**',
      'clients/typescript/src/generated/**',
      'clients/typescript/scripts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Bugs that bit or would bite here: a promise nobody awaits loses its error (and its
      // transaction); an async callback where a sync one is expected runs unobserved.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Deep imports from a package's build output break on its next minor release; a library's
      // internals are reached only in src/common/internals/, fenced (the block below).
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['*/dist/*', '**/dist/**'], message: 'Import the package entry point, not its dist/ files.' },
            { group: DEEP_IMPORTS, message: `${INTERNALS} Import the package's entry point.` },
          ],
        },
      ],
      'no-restricted-syntax': ['error', ...PRIVATE_NAMES],
      // Nest hands us handlers and classes as `Function` (ExecutionContext.getHandler(), Reflector,
      // class-validator metadata); a narrower type there would only be a cast.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // The one place that may lean on a library beyond its documented interface.
    files: ['src/common/internals/**'],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': 'off' },
  },
  {
    // Tests read untyped JSON bodies from supertest: the no-unsafe-* family would flag every line.
    files: ['test/**/*.ts', 'src/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Test doubles implement async interfaces with bodies that need no await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Small files (docs/modules.md): one past 300 lines is split by concern. Every line counts,
    // comments and blank ones too, as an editor numbers them (a why-comment is read like code, and
    // skipping them would let a file grow by its documentation unseen). Exempt: DTO files (a
    // resource's whole contract, field by field), migrations (generated), and the e2e specs
    // under test/ (one file walks a resource's routes). Unit specs in src are not exempt: they
    // sit beside the code they document and split as it does.
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    ignores: ['**/dto/**', 'src/database/migrations/**', 'test/**/*.e2e-spec.ts'],
    rules: { 'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }] },
  },
  {
    // Plain CommonJS run by node before anything is compiled (scripts/build.js): no type information.
    files: ['scripts/**/*.js'],
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { ...globals.node },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The Stripe stand-in's plain entry points (its CLI, the script that cuts Stripe's spec): no type information.
    files: ['test/support/stripe/cli.js', 'test/fixtures/stripe/cut-spec.mjs'],
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
);
