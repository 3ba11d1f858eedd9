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
  ['io', 'tensor', 'linalg'],
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
// Every engine block repeats these: ESLint keeps only the last matching block's options for a rule.
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

// Electron, one rule per runtime target (VS Code's electron-main / electron-utility split).
// main/ is Electron's main process: it loads no engine code but the protocol (the desktop bridge
// contract) and the static-file resolver, so tfjs, tokenizers and jinja never load there
// (tools/setup/build-electron.ts also refuses a main.mjs that contains them). preload/ runs
// sandboxed in the page and can require only `electron`. engine-process/ is the engine's utility
// process: engine code, Electron's types only. common/ holds names the three share. None of them
// imports another's folder, nor the renderer. Tests (not bundled) may use engine test fixtures.
const ELECTRON_TARGETS = ['main', 'preload', 'engine-process'];
const electronNeighbours = (own) => ({
  regex: `^(\\.\\./)+(${ELECTRON_TARGETS.filter((target) => target !== own).join('|')})(/|$)`,
  message: `electron/${own}/ runs in its own process: it may not import another electron folder (shared names live in electron/common/).`,
});
const electronNoRenderer = { regex: '(^|/)renderer(/|$)', message: 'electron/ may not import renderer/ code.' };
// Any engine file except the ones `allowed` matches (a regex over the path after engine/).
const engineExcept = (allowed, message) => ({ regex: `(^|/)engine/(?!(${allowed})$)`, message });
const BRIDGE_CONTRACT = 'protocol/desktop-bridge\\.ts';
// A bare specifier other than electron: an npm package or a Node built-in.
const notElectronPackage = (message) => ({ regex: '^(?!electron$)[^./]', message });

const electronBlocks = [
  {
    files: ['electron/main/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            electronNeighbours('main'),
            electronNoRenderer,
            engineExcept('protocol\\.ts|protocol/[\\w-]+\\.ts|server/static-files\\.ts', 'electron/main/ loads no engine code: only engine/protocol (the bridge contract) and engine/server/static-files.ts.'),
            { group: ['@tensorflow/*', '@huggingface/*'], message: 'electron/main/ loads no engine packages (tfjs, tokenizers, jinja): they run in the engine process.' },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            electronNeighbours('preload'),
            electronNoRenderer,
            engineExcept(BRIDGE_CONTRACT, 'electron/preload/ bundles only the bridge contract (engine/protocol/desktop-bridge.ts): the rest would have to load in the sandbox.'),
            notElectronPackage('electron/preload/ runs sandboxed: it can require only electron.'),
          ],
        },
      ],
    },
  },
  {
    files: ['electron/engine-process/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', allowTypeImports: true, message: "electron/engine-process/ uses Electron's types only, so it runs and is tested in plain Node." }],
          patterns: [electronNeighbours('engine-process'), electronNoRenderer],
        },
      ],
    },
  },
  {
    files: ['electron/common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: `^(\\.\\./)+(${ELECTRON_TARGETS.join('|')})(/|$)`, message: 'electron/common/ is shared by main, preload and engine-process: it imports none of them.' },
            electronNoRenderer,
            engineExcept(BRIDGE_CONTRACT, 'electron/common/ is bundled into the preload: only the bridge contract from engine/.'),
            notElectronPackage('electron/common/ is bundled into the sandboxed preload: no packages or Node built-ins.'),
            { regex: '^electron$', message: 'electron/common/ holds plain names: no Electron API.' },
          ],
        },
      ],
    },
  },
];

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
  ...electronBlocks,
  {
    files: ['bin/**/*.mjs', 'eslint.config.js', '*.config.ts'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
