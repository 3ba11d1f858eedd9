/**
 * A data folder whose demo project is already analysed, for specs about what happens after an
 * analysis (autosave, stale results, cancel, a second project): the demo analysis runs once per
 * checkout (through the engine's own handlers, with the demo project's settings, exactly as the
 * Analyze button runs it), and each spec gets a fresh copy. The analysis cache is keyed by input
 * hashes and paths, so a copy is 'cached' for `crane serve`. The analysed folder is kept in
 * node_modules/.cache/crane-e2e/, one per checkout path (the project records absolute paths) and
 * demo pair (a retrained pair gets a new folder; old ones can be deleted).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { createEngineHandlers } from '../../engine/handlers/engine-handlers.ts';
import { EngineSession } from '../../engine/handlers/engine-session.ts';
import { ensureDemoProject } from '../../engine/project/demo-project.ts';
import { ROOT } from '../../tools/setup/build-electron.ts';

/** The checkout path and the demo pair's bytes (checkpoints, calibration and evaluation files): a retrained pair is analysed again. */
function cacheKey(): string {
  const demo = demoPaths();
  const hash = createHash('sha256').update(ROOT);
  for (const file of [join(demo.instruct, 'model.safetensors'), join(demo.thinking, 'model.safetensors'), demo.reasoning, demo.toolUse, demo.format, demo.evalReasoning, demo.evalToolUse]) {
    hash.update(existsSync(file) ? readFileSync(file) : 'missing');
  }
  return hash.digest('hex').slice(0, 12);
}

// Not under test-results/: Playwright empties that folder at the start of every run.
const CACHE = join(ROOT, 'node_modules', '.cache', 'crane-e2e', `analysed-demo-${cacheKey()}`);
const DONE = join(CACHE, 'analysed');

async function analyseDemoInto(dataDir: string): Promise<void> {
  const projectDir = await ensureDemoProject(dataDir);
  if (projectDir === null) throw new Error('the demo pair is not built (npm run demo:train)');
  const session = new EngineSession();
  const { project } = await session.open(projectDir);
  if (project.analysis === null) throw new Error(`${projectDir}: the demo project has no analysis settings`);
  const ctx = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
  await createEngineHandlers({ session, dataDir }).analyze({ projectDir, settings: project.analysis }, ctx);
}

/** A new temporary data folder holding the analysed demo project; the caller removes it. */
export async function analysedDemoDataDir(): Promise<string> {
  if (!existsSync(DONE)) {
    const building = mkdtempSync(join(tmpdir(), 'crane-demo-analysis-'));
    await analyseDemoInto(building);
    rmSync(CACHE, { recursive: true, force: true });
    cpSync(building, CACHE, { recursive: true });
    rmSync(building, { recursive: true, force: true });
    // Written last: a run killed while copying leaves no marker, and the next run starts over.
    writeFileSync(DONE, `${new Date().toISOString()}\n`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'crane-e2e-analysed-'));
  cpSync(CACHE, dataDir, { recursive: true });
  return dataDir;
}
