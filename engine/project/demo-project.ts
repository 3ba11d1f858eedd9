/**
 * The project the studio opens when nothing else is asked for: the built-in demo pair with its
 * calibration sets, kept under the host's data folder so its analysis cache survives restarts.
 *
 *   ensureDemoProject(dataDir, demo?) → project folder, or null when the demo pair is not built
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

export async function ensureDemoProject(dataDir: string, demo = demoPaths()): Promise<string | null> {
  const built = await Promise.all([demo.instruct, demo.thinking].map((d) => access(join(d, 'config.json')).then(() => true, () => false)));
  if (built.includes(false)) return null;
  const dir = join(dataDir, 'projects', DEMO_PROJECT_NAME);
  const pair = { instruct: demo.instruct, thinking: demo.thinking };
  const analysis = demoAnalysisSettings(demo);
  const existing = await readProjectFile(dir).catch(() => null);
  const project = existing === null
    ? { ...newProject(pair), analysis }
    : { ...existing, ...pair, analysis: existing.analysis === null ? analysis : { ...existing.analysis, calibration: analysis.calibration } };
  // Made owner-only, like every project folder: nobody else may plant a project or a cache in it.
  await saveProjectFolder(dir, project);
  return dir;
}
