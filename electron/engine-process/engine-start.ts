/**
 * How the engine's utility process starts, without Electron so it is unit-tested in Node:
 *
 *   dataDirFromArgs(argv, env)     the folder main passed (`--data-dir`), else defaultDataDir()
 *   startEngineHandlers(dataDir)   the demo project prepared in the data folder and opened, then
 *                                  the handlers over that session — as `crane serve` does, so
 *                                  the desktop app starts on the demo pair too
 */
import { resolve } from 'node:path';
import type { Handlers } from '../../engine/protocol/handlers.ts';
import { EngineSession } from '../../engine/handlers/engine-session.ts';
import { defaultDataDir } from '../../engine/project/data-dir.ts';
import { ensureDemoProject } from '../../engine/project/demo-project.ts';
import { createEngineHandlers } from '../../engine/handlers/engine-handlers.ts';
import { dataDirArg } from '../common/engine-process-args.ts';

export function dataDirFromArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const given = dataDirArg(argv);
  return given === undefined ? defaultDataDir(env) : resolve(given);
}

export interface EngineStart {
  readonly handlers: Handlers;
  /** The project opened at start (the demo's), or null: no demo built, or it could not be prepared. */
  readonly project: string | null;
}

export async function startEngineHandlers(
  dataDir: string,
  log: (line: string) => void = (line) => console.error(line),
  prepare: (dataDir: string) => Promise<string | null> = (dir) => ensureDemoProject(dir),
): Promise<EngineStart> {
  const session = new EngineSession();
  const project = await prepare(dataDir)
    .then(async (dir) => (dir === null ? null : (await session.open(dir)).dir))
    .catch((error: unknown) => {
      // The engine still serves: the UI can open a pair or a project itself.
      log(`engine: the demo project could not be opened in ${dataDir}: ${(error as Error).message}`);
      return null;
    });
  return { handlers: createEngineHandlers({ session, dataDir }), project };
}
