/**
 * A data folder holding a tiny analysed Qwen3-MoE project (4 layers × 8 experts, top-2, the
 * pipeline tests' random pair and calibration chats), for the experts views: the pair is opened
 * and analysed through the engine's own handlers, as the UI's Open pair and Analyze run them.
 * Built fresh per call (about a minute on a loaded 2-core machine); the caller removes it.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngineHandlers } from '../../engine/handlers/engine-handlers.ts';
import { EngineSession } from '../../engine/handlers/engine-session.ts';
import { writeTinyProject } from '../../engine/pipeline/testing/tiny-project.ts';

export const TINY_MOE = { layers: 4, experts: 8, perToken: 2 } as const;

export async function analysedMoeDataDir(): Promise<{ dataDir: string; projectDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crane-e2e-moe-'));
  const pair = await writeTinyProject(join(dataDir, 'pair'), { model: { layers: TINY_MOE.layers, moe: { experts: TINY_MOE.experts, perToken: TINY_MOE.perToken, inner: 8 } } });
  const projectDir = join(dataDir, 'projects', 'tiny-moe');
  mkdirSync(projectDir, { recursive: true });
  const session = new EngineSession();
  await session.open(projectDir);
  const handlers = createEngineHandlers({ session, dataDir });
  const ctx = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
  await handlers.openPair({ instruct: pair.instruct, thinking: pair.thinking }, ctx);
  await handlers.analyze({ projectDir, settings: pair.settings.analysis }, ctx);
  return { dataDir, projectDir };
}
