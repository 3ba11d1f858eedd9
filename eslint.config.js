// Lint rules, including the process layering of ARCHITECTURE.md:
// engine/ never reaches into electron/ or renderer/; renderer/ never touches Node or Electron.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'engine/ runs outside Electron: no electron imports.' }],
          patterns: [
            { group: ['**/electron/**', '**/renderer/**'], message: 'engine/ may not import electron/ or renderer/ code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'renderer/ is sandboxed: talk to the engine through EngineClient.' },
            ...nodeBuiltins.map((name) => ({ name, message: 'renderer/ may not import Node built-ins.' })),
          ],
          patterns: [
            { group: ['**/electron/**'], message: 'renderer/ may not import electron/ code.' },
            { group: ['**/engine/**', '!**/engine/protocol*'], message: 'renderer/ reaches the engine only through the protocol.' },
          ],
        },
      ],
    },
  },
  {
    files: ['bin/**/*.mjs', 'eslint.config.js', '*.config.ts'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
