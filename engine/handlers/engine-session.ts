/**
 * What one engine process holds between requests: the open project and, loaded on first use,
 * its finished analysis (gate table, projectors, preview coefficients, the InstantPreview built
 * over them, the heatmap columns). Every connection of `crane serve` shares the session, so a
 * reloaded page — or a restarted Electron window — finds the same project.
 *
 *   session.open(dir) / session.save(dir, change) / session.update(change)
 *   session.requireProject() → { dir, project }         or 'not-found' when none is open
 *   session.analysis() → LoadedAnalysis                  or 'not-found' until Analyze has run
 *   session.tokenRows() → think and protected ids of Instruct's tokenizer (empty without one)
 *
 * Opens, saves and updates run one at a time in call order (one queue per session): the UI saves
 * on every settings change while Verify and Export append to the same project, and a read-modify-
 * write that interleaved with another would lose one of them, or leave an older save as the last.
 *
 * The loaded analysis is dropped whenever the project's pair changes or an analysis run ends,
 * so no view is ever computed from another pair's cache.
 */
import type { AnalysisArtifacts } from '../analysis/analysis-store.ts';
import { InstantPreview } from '../analysis/preview.ts';
import type { TokenRows } from '../protocol/settings-schemas.ts';
import { editTokenRows } from '../pipeline/checkpoint-tokenizer.ts';
import { loadCurvature } from '../pipeline/curvature-stage.ts';
import { loadPipelineAnalysis, pipelinePaths, type PipelineRecord } from '../pipeline/pipeline-folder.ts';
import { ProtocolError } from '../protocol/errors.ts';
import { newProject, readProjectFile, type StoredProject } from '../project/project-file.ts';
import { saveProjectFolder } from '../project/project-folder.ts';
import { projectPaths } from '../project/project-layout.ts';
import { blockColumns, type BlockColumns } from './block-columns.ts';
import { asProtocolError } from './handler-errors.ts';

export interface OpenProject {
  readonly dir: string;
  readonly project: StoredProject;
}

export interface LoadedAnalysis {
  readonly analysisDir: string;
  /** The analysis-store folder (what export and merge read). */
  readonly resultDir: string;
  readonly record: PipelineRecord;
  readonly artifacts: AnalysisArtifacts;
  readonly preview: InstantPreview;
  readonly columns: { readonly coarse: BlockColumns; readonly fine: BlockColumns };
}

export class EngineSession {
  private current: OpenProject | null = null;
  private loaded: Promise<LoadedAnalysis> | null = null;
  private tokens: { instruct: string; rows: Promise<TokenRows> } | null = null;
  private writes: Promise<unknown> = Promise.resolve();

  get project(): OpenProject | null {
    return this.current;
  }

  requireProject(): OpenProject {
    if (this.current === null) throw new ProtocolError('not-found', 'no project is open: open a project folder (or a pair) first');
    return this.current;
  }

  /** Opens the project in `dir`; an empty folder becomes a new project, any other folder is refused. */
  open(dir: string): Promise<OpenProject> {
    return this.inOrder(async () => {
      const existing = await readProjectFile(dir);
      const stored = existing ?? newProject();
      if (existing === null) await saveProjectFolder(dir, stored);
      if (this.current?.dir !== dir) this.loaded = null;
      return this.replace({ dir, project: stored });
    });
  }

  /**
   * Saves `change(stored)` into a folder, where `stored` is the project already there (the open one,
   * the folder's project.json, or a new project). `dir` may be resolved lazily so that a request
   * that validates its folder first still keeps its place in the queue.
   */
  save(dir: string | (() => Promise<string>), change: (stored: StoredProject) => StoredProject): Promise<OpenProject> {
    return this.inOrder(async () => {
      const target = typeof dir === 'string' ? dir : await dir();
      return this.write(target, change(await this.stored(target)));
    });
  }

  /** Changes the open project and saves it. */
  update(change: (project: StoredProject) => StoredProject): Promise<OpenProject> {
    return this.inOrder(async () => {
      const { dir, project } = this.requireProject();
      return this.write(dir, change(project));
    });
  }

  /** The open project's finished analysis, loaded once (concurrent callers share the load). */
  analysis(): Promise<LoadedAnalysis> {
    const { dir, project } = this.requireProject();
    this.loaded ??= loadAnalysisOf(dir, project).catch((error: unknown) => {
      this.loaded = null;
      throw error;
    });
    return this.loaded;
  }

  /** Drops the loaded analysis (a new run finished, or the cache changed). */
  forgetAnalysis(): void {
    this.loaded = null;
  }

  tokenRows(): Promise<TokenRows> {
    const instruct = this.requireProject().project.instruct;
    if (instruct === null) return Promise.resolve({ think: [], special: [] });
    if (this.tokens?.instruct !== instruct) {
      // A pair without tokenizer.json still edits, with no think/protected row rules (the pair
      // report shows no protected rows); a broken tokenizer fails the edit that asks for rows.
      const rows = editTokenRows(instruct, () => undefined);
      // Not cached when it fails: the user may fix the tokenizer and try again.
      rows.catch(() => { if (this.tokens?.rows === rows) this.tokens = null; });
      this.tokens = { instruct, rows };
    }
    return this.tokens.rows;
  }

  private inOrder<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.writes.then(work);
    this.writes = turn.catch(() => undefined);
    return turn;
  }

  private async stored(dir: string): Promise<StoredProject> {
    if (this.current?.dir === dir) return this.current.project;
    return (await readProjectFile(dir).catch(() => null)) ?? newProject();
  }

  private async write(dir: string, project: StoredProject): Promise<OpenProject> {
    await saveProjectFolder(dir, project);
    return this.replace({ dir, project });
  }

  private replace(next: OpenProject): OpenProject {
    const before = this.current?.project;
    if (before !== undefined && (before.instruct !== next.project.instruct || before.thinking !== next.project.thinking)) this.loaded = null;
    this.current = next;
    return next;
  }
}

async function loadAnalysisOf(dir: string, project: StoredProject): Promise<LoadedAnalysis> {
  const analysisDir = projectPaths(dir).analysis;
  let loaded;
  try {
    loaded = await loadPipelineAnalysis(analysisDir);
  } catch (error) {
    const converted = asProtocolError(error);
    if (converted instanceof ProtocolError && converted.code !== 'not-found') throw converted;
    throw new ProtocolError('not-found', 'this project has no finished analysis yet: run Analyze (it resumes where it stopped)');
  }
  const { record, artifacts } = loaded;
  if (record.instruct !== project.instruct || record.thinking !== project.thinking) {
    throw new ProtocolError('not-found', 'the analysis cache was computed for another pair: run Analyze for this one');
  }
  const gate = artifacts.gate;
  return {
    analysisDir,
    resultDir: pipelinePaths(analysisDir).result,
    record,
    artifacts,
    preview: new InstantPreview(artifacts.coefficients, gate, await loadCurvature(analysisDir, record)),
    columns: { coarse: blockColumns(gate, 'coarse'), fine: blockColumns(gate, 'fine') },
  };
}
