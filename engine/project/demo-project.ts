/**
 * The project of a built-in demo pair (builtin-pairs.ts; the dense one is what the studio opens
 * when nothing else is asked for): the pair, its shared base when built, and its calibration
 * sets, kept under the host's data folder so its analysis cache survives restarts.
 *
 *   ensureDemoProject(dataDir, demo?, name?) → project folder, or null when the pair is not built
 *
 * Token budgets are the demo's, not the paper's: its answers are at most ~100 tokens (the demo
 * evaluation decodes 96), and 8192-token budgets would only make a never-stopping decode slow.
 * Verify measures on the demo's held-out evaluation prompts (eval-reasoning.jsonl,
 * eval-tool-use.jsonl), never seen in training or calibration.
 * An existing demo project keeps its settings; only paths are refreshed (a moved checkout).
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { demoPaths } from '../demo/demo-layout.ts';
import { defaultAnalysisSettings } from '../pipeline/analysis-settings.ts';
import type { AnalysisSettings } from '../protocol/settings-schemas.ts';
import { newProject, readProjectFile } from './project-file.ts';
import { saveProjectFolder } from './project-folder.ts';

export const DEMO_PROJECT_NAME = 'demo';

export function demoAnalysisSettings(demo: ReturnType<typeof demoPaths>): AnalysisSettings {
  const defaults = defaultAnalysisSettings({ reasoning: demo.reasoning, agent: demo.toolUse, format: demo.format }).analysis;
  return {
    ...defaults, reasoningMaxNewTokens: 160, agentMaxNewTokens: 96, gsp: { ...defaults.gsp, maxTokens: 512 },
    evaluation: { source: 'files', reasoning: demo.evalReasoning, agent: demo.evalToolUse },
  };
}

const isBuilt = (checkpoint: string) => access(join(checkpoint, 'config.json')).then(() => true, () => false);

export async function ensureDemoProject(dataDir: string, demo = demoPaths(), name = DEMO_PROJECT_NAME): Promise<string | null> {
  const built = await Promise.all([demo.instruct, demo.thinking].map(isBuilt));
  if (built.includes(false)) return null;
  const dir = join(dataDir, 'projects', name);
  const pair = { instruct: demo.instruct, thinking: demo.thinking, base: (await isBuilt(demo.base)) ? demo.base : null };
  const analysis = demoAnalysisSettings(demo);
  const existing = await readProjectFile(dir).catch(() => null);
  const project = existing === null
    ? { ...newProject(pair), ...pair, analysis }
    : { ...existing, ...pair, analysis: existing.analysis === null ? analysis : { ...existing.analysis, calibration: analysis.calibration } };
  // Made owner-only, like every project folder: nobody else may plant a project or a cache in it.
  await saveProjectFolder(dir, project);
  return dir;
}
