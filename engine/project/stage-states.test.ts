/**
 * The stage states a project shows agree with what analyze then does: a finished analysis is
 * cached throughout; one made before the gates stage had its own marker (4e366d9: stages/gates/
 * done.json, keyed with the gradients' batch split, which the curvature marker holds too) shows
 * gates and curvature stale, and analyze reruns exactly those two.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../tensor/backend.ts';
import { analysedProject, type AnalysedProject } from '../pipeline/testing/analysed-project.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';
import { runAnalysis } from '../pipeline/run-analysis.ts';
import { STAGE_MARKER } from '../pipeline/stage-store.ts';
import { newProject } from './project-file.ts';
import { projectStageStates } from './stage-states.ts';

let analysed: AnalysedProject;

beforeAll(async () => {
  await initBackend('wasm');
  // The analysis lies where a project folder keeps it (project-layout.ts: DIR/analysis).
  analysed = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-stage-states-')));
}, 240_000);

afterAll(() => rm(analysed.root, { recursive: true, force: true }));

const states = async () => Object.fromEntries((await projectStageStates(analysed.root, newProject({ instruct: analysed.instruct, thinking: analysed.thinking }))).map((s) => [s.stage, s.state]));

describe('projectStageStates', () => {
  it('shows gates and curvature stale in an analysis made before their markers held the batch split, as analyze reruns them', async () => {
    expect(await states()).toEqual({ targets: 'cached', projectors: 'cached', gradients: 'cached', gates: 'cached', curvature: 'cached' });

    const paths = pipelinePaths(analysed.outDir);
    await rm(join(paths.gates, STAGE_MARKER));
    const curvatureMarker = join(paths.curvature, STAGE_MARKER);
    const { batches, ...before } = JSON.parse(await readFile(curvatureMarker, 'utf8')) as Record<string, unknown>;
    expect(batches).toBeDefined();
    await writeFile(curvatureMarker, JSON.stringify(before));
    expect(await states()).toEqual({ targets: 'cached', projectors: 'cached', gradients: 'cached', gates: 'stale', curvature: 'stale' });

    const rerun = await runAnalysis({ ...analysed, outDir: analysed.outDir });
    expect(Object.fromEntries(rerun.stages.map((s) => [s.stage, s.cached]))).toEqual({ targets: true, projectors: true, gradients: true, gates: false, curvature: false });
    expect(await states()).toEqual({ targets: 'cached', projectors: 'cached', gradients: 'cached', gates: 'cached', curvature: 'cached' });
  }, 240_000);
});
