import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { demoPaths } from '../demo/demo-layout.ts';
import { ensureDemoProject } from './demo-project.ts';
import { newProject, PROJECT_FORMAT_VERSION, readProjectFile, writeProjectFile } from './project-file.ts';
import { PROJECT_FILE } from './project-layout.ts';
import { DEFAULT_ANALYSIS_KNOBS } from '../protocol/settings-defaults.ts';
import { projectStageStates } from './stage-states.ts';

const VERIFIED = { method: { method: 'task_arithmetic' as const, lambda: 0.3 }, measuredOn: { source: 'calibration' as const }, edited: { reasoning: 1, agent: 2 }, base: { reasoning: 1.5, agent: 2 }, tokens: { reasoning: 10, agent: 4 }, seconds: 3 };

describe('project file', () => {
  it('round-trips every field, atomically, and a folder without one has none', async () => {
    await withTempDir(async (dir) => {
      expect(await readProjectFile(dir)).toBeNull();
      const project = {
        ...newProject({ instruct: '/m/i', thinking: '/m/t' }),
        settings: { ...newProject().settings, alpha: 0.4, overrides: [{ block: { layer: 2, group: 'attention' }, gate: null, locked: true }] },
        verified: [VERIFIED],
        exports: [{ outDir: '/out', method: { method: 'slerp' as const, t: 0.3 }, dtype: 'BF16', totalBytes: 10, files: ['model.safetensors'], finishedAt: '2026-01-01T00:00:00.000Z' }],
      };
      await writeProjectFile(dir, project);
      expect(await readProjectFile(dir)).toEqual(project);
      expect(await readdir(dir)).toEqual([PROJECT_FILE]);
      expect(JSON.parse(await readFile(join(dir, PROJECT_FILE), 'utf8'))).toMatchObject({ format: 'crane-project', formatVersion: PROJECT_FORMAT_VERSION });
    });
  });

  it('refuses a newer format version and a file that is not a project, naming the file', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, PROJECT_FILE), JSON.stringify({ ...newProject(), formatVersion: 99 }));
      await expect(readProjectFile(dir)).rejects.toThrow(/project format 99/);
      await writeFile(join(dir, PROJECT_FILE), '{"format": "something else"}');
      await expect(readProjectFile(dir)).rejects.toThrow(/project\.json: is not a CRANE project file/);
    });
  });

  it('reads a version-1 file in the old settings vocabulary as the current one', async () => {
    await withTempDir(async (dir) => {
      const settings = { alpha: 0.4, keepQuantile: 0.5, tau: 0.03, steepness: 4.6 / 0.03, stages: { threshold: true, ctg: false, gsp: true }, grouping: 'fine', special: { thinkRows: 0.8, lmHeadScale: 0.03, routerAlphaFraction: 1 / 3 }, overrides: [] };
      const measured = { edited: { reasoning: 1, agent: 2 }, base: { reasoning: 1.5, agent: 2 }, tokens: { reasoning: 10, agent: 4 }, seconds: 3 };
      await writeFile(join(dir, PROJECT_FILE), JSON.stringify({
        format: 'crane-project', formatVersion: 1, instruct: '/m/i', thinking: '/m/t', analysis: null, settings,
        verified: [{ method: { kind: 'crane', settings }, ...measured }, { method: { kind: 'task-arithmetic', lambda: 0.3 }, ...measured }],
        exports: [{ outDir: '/out', method: { kind: 'dare', lambda: 0.3, dropRate: 0.5, seed: 1 }, dtype: 'BF16', totalBytes: 10, files: [], finishedAt: '2026-01-01T00:00:00.000Z' }],
      }));
      const project = await readProjectFile(dir);
      const { alpha, keepQuantile, tau, steepness, special, overrides } = settings;
      const current = { alpha, keepQuantile, tau, steepness, stages: { threshold: true, gate: false, gsp: true }, granularity: 'fine', special, overrides };
      expect(project?.formatVersion).toBe(PROJECT_FORMAT_VERSION);
      expect(project?.settings).toEqual(current);
      expect(project?.verified.map((v) => v.method)).toEqual([{ method: 'crane', settings: current }, { method: 'task_arithmetic', lambda: 0.3 }]);
      expect(project?.exports[0]?.method).toEqual({ method: 'dare', lambda: 0.3, dropProbability: 0.5, seed: 1 });
    });
  });

  it('reads a version-2 file: its held-out share becomes the evaluation set, and its verified points say they were measured there', async () => {
    await withTempDir(async (dir) => {
      const rest = newProject({ instruct: '/m/i', thinking: '/m/t' });
      const { reasoningMaxNewTokens, agentMaxNewTokens, gsp } = DEFAULT_ANALYSIS_KNOBS;
      const analysis = { calibration: { reasoning: '/d/r.jsonl', agent: '/d/a.jsonl', format: '/d/f.jsonl' }, reasoningMaxNewTokens, agentMaxNewTokens, gsp };
      const { method, edited, base, tokens, seconds } = VERIFIED;
      const point = { method, edited, base, tokens, seconds };
      await writeFile(join(dir, PROJECT_FILE), JSON.stringify({ ...rest, formatVersion: 2, analysis: { ...analysis, heldOutFraction: 0.3 }, verified: [point] }));
      const project = await readProjectFile(dir);
      expect(project?.analysis).toEqual({ ...analysis, evaluation: { source: 'held-out', fraction: 0.3 } });
      expect(project?.verified).toEqual([{ ...point, measuredOn: { source: 'held-out', fraction: 0.3 } }]);
      await writeFile(join(dir, PROJECT_FILE), JSON.stringify({ ...rest, formatVersion: 2, analysis: { ...analysis, heldOutFraction: 0 }, verified: [] }));
      expect((await readProjectFile(dir))?.analysis?.evaluation).toEqual({ source: 'calibration' });
    });
  });

  it('reports every analysis stage missing for a project never analysed', async () => {
    await withTempDir(async (dir) => {
      const states = await projectStageStates(dir, newProject());
      expect(states.map((s) => s.state)).toEqual(['missing', 'missing', 'missing', 'missing', 'missing']);
    });
  });

  it('makes a demo project once the demo pair exists, keeping its settings on the next start', async () => {
    await withTempDir(async (root) => {
      const demo = demoPaths(join(root, 'demo'));
      expect(await ensureDemoProject(join(root, 'user'), demo)).toBeNull();
      for (const side of [demo.instruct, demo.thinking]) {
        await mkdir(side, { recursive: true });
        await writeFile(join(side, 'config.json'), '{}');
      }
      const dir = await ensureDemoProject(join(root, 'user'), demo);
      const project = await readProjectFile(dir as string);
      expect(project).toMatchObject({
        instruct: demo.instruct, thinking: demo.thinking,
        analysis: { calibration: { reasoning: demo.reasoning, agent: demo.toolUse, format: demo.format }, evaluation: { source: 'files', reasoning: demo.evalReasoning, agent: demo.evalToolUse } },
      });
      await writeProjectFile(dir as string, { ...(project as NonNullable<typeof project>), settings: { ...newProject().settings, alpha: 0.1 } });
      expect(await ensureDemoProject(join(root, 'user'), demo)).toBe(dir);
      expect((await readProjectFile(dir as string))?.settings.alpha).toBe(0.1);
    });
  });
});
