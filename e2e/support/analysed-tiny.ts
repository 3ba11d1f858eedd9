/**
 * A data folder holding one tiny analysed project over the pipeline tests' random pair and
 * calibration chats (engine/pipeline/testing/tiny-project.ts), its model shaped by `model` (an
 * MoE, a looped model): the pair is opened and analysed through the engine's own handlers, as the
 * UI's Open pair and Analyze run them. Built fresh per call (about a minute on a loaded 2-core
 * machine); the caller removes it.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngineHandlers } from '../../engine/handlers/engine-handlers.ts';
import { EngineSession } from '../../engine/handlers/engine-session.ts';
import type { TinyModelOptions } from '../../engine/model/testing/tiny-checkpoint.ts';
import { writeTinyProject } from '../../engine/pipeline/testing/tiny-project.ts';

export async function analysedTinyDataDir(name: string, model: TinyModelOptions): Promise<{ dataDir: string; projectDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), `crane-e2e-${name}-`));
  const pair = await writeTinyProject(join(dataDir, 'pair'), { model });
  const projectDir = join(dataDir, 'projects', name);
  mkdirSync(projectDir, { recursive: true });
  const session = new EngineSession();
  await session.open(projectDir);
  const handlers = createEngineHandlers({ session, dataDir });
  const ctx = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
  await handlers.openPair({ instruct: pair.instruct, thinking: pair.thinking }, ctx);
  await handlers.analyze({ projectDir, settings: pair.settings.analysis }, ctx);
  return { dataDir, projectDir };
}
