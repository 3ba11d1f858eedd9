// The layering of ARCHITECTURE.md ("Layers and the rules that hold them apart") is held by
// no-restricted-imports in eslint.config.js. Each row plants one import in a virtual file and lints
// it through ESLint's Node API with the project's real config: a row with `fails` must be refused
// by no-restricted-imports with a message containing that text, a row without must lint clean.
// Add a layer's cases by adding rows.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

interface LayerCase {
  /** Where the planted file would live, relative to the repository root. */
  readonly file: string;
  /** The module it imports. */
  readonly imports: string;
  /** Text the lint message must contain; absent when the import is legal. */
  readonly fails?: string;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

const floor = (n: number) => `is on floor ${n}`;

const ENGINE_FLOOR_CASES: LayerCase[] = [
  // Each floor importing the floor above it.
  { file: 'engine/protocol/probe.ts', imports: '../io/checkpoint.ts', fails: `engine/protocol/ ${floor(0)}` },
  { file: 'engine/io/probe.ts', imports: '../model/config.ts', fails: `engine/io/ ${floor(1)}` },
  { file: 'engine/tensor/probe.ts', imports: '../crane/slerp.ts', fails: `engine/tensor/ ${floor(1)}` },
  { file: 'engine/linalg/probe.ts', imports: '../calibration/tokenizer.ts', fails: `engine/linalg/ ${floor(1)}` },
  { file: 'engine/model/probe.ts', imports: '../analysis/preview.ts', fails: `engine/model/ ${floor(2)}` },
  { file: 'engine/calibration/probe.ts', imports: '../demo/tasks.ts', fails: `engine/calibration/ ${floor(2)}` },
  { file: 'engine/crane/probe.ts', imports: '../analysis/preview.ts', fails: `engine/crane/ ${floor(2)}` },
  { file: 'engine/analysis/probe.ts', imports: '../export/merge.ts', fails: `engine/analysis/ ${floor(3)}` },
  { file: 'engine/demo/probe.ts', imports: '../export/merge.ts', fails: `engine/demo/ ${floor(3)}` },
  { file: 'engine/export/probe.ts', imports: '../pipeline/run-analysis.ts', fails: `engine/export/ ${floor(4)}` },
  { file: 'engine/pipeline/probe.ts', imports: '../project/project-file.ts', fails: `engine/pipeline/ ${floor(5)}` },
  { file: 'engine/project/probe.ts', imports: '../handlers/engine-session.ts', fails: `engine/project/ ${floor(6)}` },
  { file: 'engine/handlers/probe.ts', imports: '../server/serve.ts', fails: `engine/handlers/ ${floor(7)}` },
  { file: 'engine/server/probe.ts', imports: '../cli/main.ts', fails: `engine/server/ ${floor(8)}` },
  // Neighbours on one floor stay independent; sub-folders obey their folder's floor.
  { file: 'engine/crane/probe.ts', imports: '../model/config.ts', fails: `engine/crane/ ${floor(2)}` },
  { file: 'engine/crane/testing/probe.ts', imports: '../../pipeline/run-analysis.ts', fails: `engine/crane/ ${floor(2)}` },
  // A folder not yet given a floor imports no engine folder.
  { file: 'engine/moe/probe.ts', imports: '../crane/slerp.ts', fails: 'has no floor' },
  // Legal: downward, the protocol from anywhere, and cli over server (`crane serve`).
  { file: 'engine/crane/probe.ts', imports: '../linalg/svd.ts' },
  { file: 'engine/crane/testing/probe.ts', imports: '../../io/testing/fixtures.ts' },
  { file: 'engine/pipeline/probe.ts', imports: '../protocol/common-schemas.ts' },
  { file: 'engine/handlers/probe.ts', imports: '../project/project-file.ts' },
  { file: 'engine/cli/probe.ts', imports: '../server/serve.ts' },
];

const PROCESS_CASES: LayerCase[] = [
  // The protocol is bundled into the renderer: no Node, no floor, from protocol/ or a root file.
  { file: 'engine/protocol/client.ts', imports: 'node:net', fails: 'no Node built-ins' },
  { file: 'engine/protocol/client.ts', imports: 'ws', fails: 'browser WebSocket' },
  { file: 'engine/protocol.ts', imports: './io/checkpoint.ts', fails: `engine/protocol/ ${floor(0)}` },
  { file: 'engine/protocol-extra.ts', imports: 'node:fs', fails: 'no Node built-ins' },
  { file: 'engine/protocol/probe.ts', imports: 'zod' },
  // The engine never reaches into the renderer or Electron.
  { file: 'engine/io/probe.ts', imports: '../../renderer/src/store/store.ts', fails: 'may not import electron/ or renderer/' },
  { file: 'engine/server/probe.ts', imports: 'electron', fails: 'runs outside Electron' },
  // The renderer touches no Node and reaches the engine only through engine/protocol.ts.
  { file: 'renderer/src/probe.ts', imports: 'node:fs', fails: 'may not import Node built-ins' },
  { file: 'renderer/src/probe.ts', imports: 'fs', fails: 'may not import Node built-ins' },
  { file: 'renderer/src/probe.ts', imports: 'electron', fails: 'sandboxed' },
  { file: 'renderer/src/store/probe.ts', imports: '../../../engine/io/checkpoint.ts', fails: 'only through engine/protocol.ts' },
  { file: 'renderer/src/probe.ts', imports: '../../engine/protocol/client.ts', fails: 'only through engine/protocol.ts' },
  { file: 'renderer/src/probe.ts', imports: '../../engine/protocol-extra.ts', fails: 'only through engine/protocol.ts' },
  { file: 'renderer/src/probe.ts', imports: '../../engine/protocol.ts' },
  { file: 'renderer/src/probe.ts', imports: './engine-link/engine-api.ts' },
];

// Electron by runtime target: main loads no engine code, the preload only electron and the bridge
// contract, the engine process only Electron's types; no folder imports another's.
const ELECTRON_CASES: LayerCase[] = [
  { file: 'electron/main/probe.ts', imports: '../../engine/tensor/backend.ts', fails: 'loads no engine code' },
  { file: 'electron/main/probe.ts', imports: '../../engine/handlers/engine-handlers.ts', fails: 'loads no engine code' },
  { file: 'electron/main/probe.ts', imports: '../../engine/protocol-extra.ts', fails: 'loads no engine code' },
  { file: 'electron/main/probe.ts', imports: '@tensorflow/tfjs-core', fails: 'no engine packages' },
  { file: 'electron/main/probe.ts', imports: '@huggingface/jinja', fails: 'no engine packages' },
  { file: 'electron/main/probe.ts', imports: '../engine-process/engine-start.ts', fails: 'may not import another electron folder' },
  { file: 'electron/main/probe.ts', imports: '../preload/preload.ts', fails: 'may not import another electron folder' },
  { file: 'electron/main/probe.ts', imports: '../../renderer/src/protocol.ts', fails: 'may not import renderer/' },
  { file: 'electron/main/probe.ts', imports: '../../engine/protocol.ts' },
  { file: 'electron/main/probe.ts', imports: '../../engine/protocol/desktop-bridge.ts' },
  { file: 'electron/main/probe.ts', imports: '../../engine/server/static-files.ts' },
  { file: 'electron/main/probe.ts', imports: '../common/ipc-channels.ts' },
  { file: 'electron/main/probe.ts', imports: 'electron' },
  { file: 'electron/preload/probe.ts', imports: 'node:fs', fails: 'can require only electron' },
  { file: 'electron/preload/probe.ts', imports: 'zod', fails: 'can require only electron' },
  { file: 'electron/preload/probe.ts', imports: '../../engine/protocol.ts', fails: 'only the bridge contract' },
  { file: 'electron/preload/probe.ts', imports: '../main/ipc.ts', fails: 'may not import another electron folder' },
  { file: 'electron/preload/probe.ts', imports: '../../engine/protocol/desktop-bridge.ts' },
  { file: 'electron/preload/probe.ts', imports: '../common/ipc-channels.ts' },
  { file: 'electron/preload/probe.ts', imports: 'electron' },
  { file: 'electron/engine-process/probe.ts', imports: 'electron', fails: "Electron's types only" },
  { file: 'electron/engine-process/probe.ts', imports: '../main/engine-supervisor.ts', fails: 'may not import another electron folder' },
  { file: 'electron/engine-process/probe.ts', imports: '../../engine/handlers/engine-handlers.ts' },
  { file: 'electron/engine-process/probe.ts', imports: '../common/engine-process-args.ts' },
  { file: 'electron/common/probe.ts', imports: 'electron', fails: 'no Electron API' },
  { file: 'electron/common/probe.ts', imports: 'node:path', fails: 'no packages or Node built-ins' },
  { file: 'electron/common/probe.ts', imports: '../main/ipc.ts', fails: 'imports none of them' },
];

async function restrictedImportMessages({ file, imports }: LayerCase): Promise<string[]> {
  const code = `import * as planted from '${imports}';\nexport { planted };\n`;
  const [result] = await eslint.lintText(code, { filePath: file });
  if (!result) throw new Error(`ESLint returned no result for ${file}`);
  const others = result.messages.filter((message) => message.ruleId !== 'no-restricted-imports');
  expect(others, `${file}: lint problems besides the layering rule`).toEqual([]);
  return result.messages.map((message) => message.message);
}

describe.each([
  ['engine floors', ENGINE_FLOOR_CASES],
  ['process boundaries', PROCESS_CASES],
  ['electron by runtime target', ELECTRON_CASES],
])('layer rules: %s', (_layer, cases) => {
  it.each(cases)('$file importing $imports', async (layerCase) => {
    const messages = await restrictedImportMessages(layerCase);
    if (layerCase.fails === undefined) expect(messages).toEqual([]);
    else expect(messages).toEqual([expect.stringContaining(layerCase.fails)]);
  });
});

describe('the engine tree and its floors', () => {
  const engineDir = join(root, 'engine');
  const engineFolders = readdirSync(engineDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

  // A folder left out of ENGINE_FLOORS gets the catch-all "has no floor" rule.
  it.each(engineFolders)('engine/%s/ is placed on a floor', async (folder) => {
    const config = (await eslint.calculateConfigForFile(`engine/${folder}/probe.ts`)) as { rules: Record<string, unknown> };
    expect(JSON.stringify(config.rules['no-restricted-imports'])).not.toContain('has no floor');
  });

  // The rules recognise a floor by its folder name, so no sub-folder may reuse one.
  it('no engine sub-folder reuses a floor name', () => {
    const nested = readdirSync(engineDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.parentPath !== engineDir)
      .map((entry) => entry.name);
    expect(nested.filter((name) => engineFolders.includes(name))).toEqual([]);
  });
});
