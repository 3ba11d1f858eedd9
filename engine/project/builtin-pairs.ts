/**
 * The pairs that ship with the studio, trained by the project (npm run demo:train [--pair moe|looped]):
 * the project list offers each one that is built, as a project prepared in the host's data
 * folder (demo-project.ts). The first is the one the studio opens at start.
 */
import { demoPaths } from '../demo/demo-layout.ts';
import { DEMO_LOOPED_ROOT } from '../demo/looped-layout.ts';
import { DEMO_MOE_ROOT } from '../demo/moe-layout.ts';
import { DEMO_PROJECT_NAME, ensureDemoProject } from './demo-project.ts';

export interface BuiltinPair {
  /** The project folder's name under DATA/projects. */
  readonly name: string;
  readonly label: string;
  readonly paths: ReturnType<typeof demoPaths>;
}

export const BUILTIN_PAIRS: readonly BuiltinPair[] = [
  { name: DEMO_PROJECT_NAME, label: 'Demo pair: Qwen3, 4 layers, dense', paths: demoPaths() },
  { name: 'demo-moe', label: 'Demo MoE pair: Qwen3-MoE, 4 layers × 8 experts, top-2', paths: demoPaths(DEMO_MOE_ROOT) },
  { name: 'demo-looped', label: 'Demo looped pair: Nanbeige-style, 2 layers run twice', paths: demoPaths(DEMO_LOOPED_ROOT) },
];

export interface BuiltinProject {
  readonly name: string;
  readonly label: string;
  readonly projectDir: string;
}

/** The project of every built pair, prepared (or refreshed) in `dataDir`; unbuilt pairs are left out. */
export async function builtinProjects(dataDir: string, pairs: readonly BuiltinPair[] = BUILTIN_PAIRS): Promise<BuiltinProject[]> {
  const projects: BuiltinProject[] = [];
  for (const pair of pairs) {
    const projectDir = await ensureDemoProject(dataDir, pair.paths, pair.name);
    if (projectDir !== null) projects.push({ name: pair.name, label: pair.label, projectDir });
  }
  return projects;
}
