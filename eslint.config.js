// Lint rules, including the layering of ARCHITECTURE.md ("Layers and the rules that hold them
// apart"): engine/ never reaches into electron/ or renderer/, each engine folder imports only the
// floors below its own, and renderer/ never touches Node, Electron or engine internals.
// tools/lint-layers.test.ts plants a violation of each rule and checks that lint fails.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// The engine's floors, lowest first. A folder imports its own files and folders on lower floors,
// never a folder above it nor a neighbour on its own floor (neighbours stay independent).
// protocol/ is the ground floor: every floor speaks it, and it imports no floor because the
// renderer bundles it. The rules match folder names, so no engine sub-folder may reuse one.
const ENGINE_FLOORS = [
  ['protocol'],
  ['io', 'tensor', 'linalg', 'util'],
  ['model', 'calibration', 'crane'],
  ['analysis', 'demo'],
  ['export'],
  ['pipeline'],
  ['project'],
  ['handlers'],
  ['server'],
  ['cli'],
];
const ENGINE_FOLDERS = ENGINE_FLOORS.flat();

// A relative import that lands in one of `folders`: '../crane/x.ts' from a floor folder,
// './crane/x.ts' from engine/protocol.ts.
const importsFolder = (folders) => `^(\\.\\.?/)+(${folders.join('|')})(/|$)`;

// engine/ runs outside Electron and the renderer; `paths` and `patterns` add a folder's own bans.
const engineRestrictions = ({ paths = [], patterns = [] }) => [
  'error',
  {
    paths: [{ name: 'electron', message: 'engine/ runs outside Electron: no electron imports.' }, ...paths],
    patterns: [
      { group: ['**/electron/**', '**/renderer/**'], message: 'engine/ may not import electron/ or renderer/ code.' },
      ...patterns,
    ],
  },
];

// One rule per engine folder: the folders it may not import, named in the message.
const floorRule = (folder, level) => {
  const below = ENGINE_FLOORS.slice(0, level).flat();
  const barred = ENGINE_FOLDERS.filter((other) => other !== folder && !below.includes(other));
  if (barred.length === 0) return [];
  const floor = ENGINE_FLOORS[level].join(', ');
  const allowed = below.length === 0 ? 'no engine folder' : `only ${below.join(', ')}`;
  return [{ regex: importsFolder(barred), message: `engine/${folder}/ is on floor ${level} (${floor}): it imports ${allowed}.` }];
};

// The renderer bundles engine/protocol.ts and what it imports, so protocol/ and any engine root
// file also import no Node built-in and no Node socket library.
const protocolBlock = {
  files: ['engine/protocol/**/*.ts', 'engine/*.ts'],
  rules: {
    'no-restricted-imports': engineRestrictions({
      paths: [
        { name: 'ws', message: 'engine/protocol is bundled into the renderer: use the browser WebSocket.' },
        ...nodeBuiltins.map((name) => ({ name, message: 'engine/protocol is bundled into the renderer: no Node built-ins.' })),
      ],
      patterns: floorRule('protocol', 0),
    }),
  },
};

const engineFloorBlocks = ENGINE_FLOORS.flatMap((floor, level) =>
  floor
    .filter((folder) => folder !== 'protocol')
    .map((folder) => ({
      files: [`engine/${folder}/**/*.ts`],
      rules: { 'no-restricted-imports': engineRestrictions({ patterns: floorRule(folder, level) }) },
    })),
);

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
    // A folder missing from ENGINE_FLOORS may import no engine folder until it is given a floor.
    files: ['engine/**/*.ts'],
    rules: {
      'no-restricted-imports': engineRestrictions({
        patterns: [{ regex: importsFolder(ENGINE_FOLDERS), message: 'This engine folder has no floor: add it to ENGINE_FLOORS in eslint.config.js.' }],
      }),
    },
  },
  protocolBlock,
  ...engineFloorBlocks,
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
            // Exactly engine/protocol.ts: no other engine file, however its name begins.
            { regex: '(^|/)engine(/(?!protocol(\\.ts)?$)|$)', message: 'renderer/ reaches the engine only through engine/protocol.ts.' },
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
