/**
 * Everything the UI asks of the engine. Actions write results (or typed errors) into the store;
 * a method the engine answers 'not-implemented' is recorded so views can say so plainly.
 * Preview and spectrum requests are coalesced (latest wins), so slider moves never queue up.
 * The preview is stored with the key of the settings it was computed for, so a view can tell a
 * current result from one left over by a failed or pending request.
 */
import type { EngineApi } from '../engine-link/engine-api.ts';
import type { CallOptions, CraneSettings, MergeMethodName, Params, RequestName, Result } from '../protocol.ts';
import { ProtocolError, STRENGTH_RANGE } from '../protocol.ts';
import { latestWins } from '../lib/latest-wins.ts';
import { settingsKey } from '../lib/settings-key.ts';
import { UNSET_ANALYSIS } from './analysis-slice.ts';
import type { AppStore } from './app-store.ts';
import { shardBytesOf } from './export-slice.ts';
import { projectContent, projectContentKey } from './autosave.ts';
import { methodOf } from './methods-slice.ts';
import { clearProjectResults } from './project-switch.ts';
import { rememberedView } from './saved-view.ts';
import type { BlockPasses, PaneIndex } from './side-by-side-slice.ts';
import { failed, idle, loading, ready, toErrorInfo, type Loadable } from './slice.ts';
import { VerifyJobs } from './verify-jobs.ts';

/** α values the preview curve is drawn over: 0..1, wider when α itself goes past 0.9 (up to α's range). */
export function previewAlphas(alpha: number, points = 41): number[] {
  const top = alpha > 0.9 ? Math.min(STRENGTH_RANGE.max, Math.ceil(alpha * 2)) : 1;
  return Array.from({ length: points }, (_, i) => (top * i) / (points - 1));
}

export class EngineActions {
  private api: EngineApi | null = null;
  private analysisAbort: AbortController | null = null;
  private exportAbort: AbortController | null = null;
  readonly verifyJobs: VerifyJobs;

  readonly preview = latestWins((settings: CraneSettings) => this.run('preview', { settings, alphas: previewAlphas(settings.alpha) }), {
    onResult: (result, settings, superseded) => {
      this.store.getState().setPreview(ready(result), settingsKey(settings));
      this.store.getState().setPreviewPending(superseded);
    },
    onError: (error) => {
      this.store.getState().setPreview(failed(this.store.getState().preview, toErrorInfo(error)));
      this.store.getState().setPreviewPending(false);
    },
  });

  readonly spectrum = latestWins((params: Params<'spectrum'>) => this.run('spectrum', params), {
    onResult: (result) => this.store.getState().setSpectrum(ready(result)),
    onError: (error) => this.store.getState().setSpectrum(failed(this.store.getState().spectrum, toErrorInfo(error))),
  });

  constructor(private readonly store: AppStore) {
    this.verifyJobs = new VerifyJobs(store, (params, options) => this.run('verify', params, options));
  }

  attach(api: EngineApi | null): void {
    this.api = api;
  }

  get connected(): boolean {
    return this.api !== null;
  }

  /** One engine call; 'not-implemented' answers are remembered per method. */
  async run<K extends RequestName>(method: K, params: Params<K>, options?: CallOptions): Promise<Result<K>> {
    if (this.api === null) throw new ProtocolError('disconnected', 'not connected to an engine');
    try {
      return await this.api.call(method, params, options);
    } catch (error) {
      if (error instanceof ProtocolError && error.code === 'not-implemented') this.store.getState().markUnavailable(method, error.message);
      throw error;
    }
  }

  async openPair(): Promise<void> {
    const s = this.store.getState();
    s.setPairSummary(loading(s.pair.summary));
    try {
      const base = s.pair.basePath.trim();
      const summary = await this.run('openPair', { instruct: s.pair.instructPath, thinking: s.pair.thinkingPath, ...(base === '' ? {} : { base }) });
      this.store.getState().setPairSummary(ready(summary));
    } catch (error) {
      this.store.getState().setPairSummary(failed(this.store.getState().pair.summary, toErrorInfo(error)));
      return;
    }
    // The engine files the pair into the open project (or a new one of its own): follow it.
    try {
      const state = await this.run('getProjectState', {});
      if (state !== null) this.applyProject(state, false, false);
    } catch {
      // The pair is open either way; the project panel shows what is known.
    }
  }

  /** Restores a project the engine already has open (after a reload or an engine restart). */
  async restoreProject(): Promise<void> {
    try {
      const state = await this.run('getProjectState', {});
      if (state === null) return;
      this.applyProject(state);
      const view = rememberedView(state.projectDir);
      if (view !== null) this.store.getState().setView(view);
    } catch {
      // No project to restore is the normal case for a fresh engine.
    }
  }

  /**
   * After a reconnect the engine may be a new process with another project open, or none: the
   * page's project is opened again. The page keeps its settings and their undo history (they
   * may be unsaved); stage states, gate metrics and the preview are fetched afresh.
   */
  async reopenProject(): Promise<void> {
    const open = this.store.getState().project.state.result;
    if (open === null) return this.restoreProject();
    try {
      this.applyProject(await this.run('openProject', { projectDir: open.projectDir }), false);
    } catch (error) {
      this.store.getState().setProjectState(failed(this.store.getState().project.state, toErrorInfo(error)));
    }
  }

  async openProject(dir = this.store.getState().project.dir): Promise<void> {
    const s = this.store.getState();
    s.setProjectDir(dir);
    s.setProjectState(loading(s.project.state));
    try {
      this.applyProject(await this.run('openProject', { projectDir: dir }));
    } catch (error) {
      this.store.getState().setProjectState(failed(this.store.getState().project.state, toErrorInfo(error)));
    }
  }

  /**
   * Writes the page's settings and measured results to the open project's project.json (the
   * autosave's write, and the Save button's). The page keeps its own values: a result that
   * arrived while the write was on its way is not overwritten by the reply, it makes the page
   * 'unsaved' again and the autosave writes it next.
   */
  async saveProject(dir = this.store.getState().project.state.result?.projectDir ?? this.store.getState().project.dir): Promise<void> {
    const s = this.store.getState();
    const project = projectContent(s);
    const saveAs = dir !== s.project.state.result?.projectDir;
    s.setProjectSave({ status: 'saving', error: null });
    try {
      const state = await this.run('saveProject', { projectDir: dir, project });
      const st = this.store.getState();
      if (saveAs) this.applyProject(state, false, false);
      else {
        st.setProjectState(ready({ ...state, project }));
        st.applyStageStates(state.stages);
      }
      st.setProjectSave({ status: 'saved', savedKey: projectContentKey(project), at: Date.now(), error: null });
    } catch (error) {
      this.store.getState().setProjectSave({ status: 'error', error: toErrorInfo(error) });
    }
  }

  /** Writes pending changes now (before a job that reads the project, e.g. Analyze reads q from it). */
  async flushSave(): Promise<void> {
    const { save } = this.store.getState().project;
    if (save.status === 'unsaved' || save.status === 'error') await this.saveProject();
  }

  /**
   * `openPair`: also open the project's pair, so its compatibility report shows at once. Another
   * project than the one on screen drops every result of the previous one (heatmap, preview,
   * spectrum, panes, Verify jobs) and takes this one's settings, analysis settings and measured
   * results. The same project again (`resetSettings` false: the engine refiled a pair, or came
   * back after a restart) keeps the page's own values: they may be newer than the file, and the
   * autosave writes them.
   */
  private applyProject(state: Result<'openProject'>, resetSettings = true, openPair = true): void {
    const s = this.store.getState();
    // No autosave while the page takes the project's values in (they are what the file holds).
    s.setProjectSave({ savedKey: null });
    const switching = s.project.state.result?.projectDir !== state.projectDir;
    if (switching) clearProjectResults(s);
    s.setProjectState(ready(state));
    s.setProjectDir(state.projectDir);
    s.rememberProject(state.projectDir);
    s.setPairPaths({ instructPath: state.project.instruct ?? '', thinkingPath: state.project.thinking ?? '', basePath: state.project.base ?? '' });
    if (resetSettings || switching) {
      s.setAnalysisSettings(state.project.analysis ?? UNSET_ANALYSIS);
      s.resetSettings(state.project.settings);
      s.setMeasured(state.project.verified);
    }
    s.setProjectSave({ status: 'saved', savedKey: projectContentKey(state.project), error: null });
    s.applyStageStates(state.stages);
    if (state.stages.some((st) => st.stage === 'gates' && st.state !== 'missing')) void this.loadGateMetrics();
    if (openPair && state.project.instruct !== null && state.project.thinking !== null) void this.openPair();
  }

  async analyze(): Promise<void> {
    this.analysisAbort?.abort();
    const abort = (this.analysisAbort = new AbortController());
    this.store.getState().analysisStarted();
    try {
      // The analysis follows the project's q (its preview coefficients are computed at one q):
      // the project must hold the q on screen before the engine reads it.
      await this.flushSave();
      const s = this.store.getState();
      if (s.project.save.error !== null) throw ProtocolError.fromInfo(s.project.save.error);
      const summary = await this.run('analyze', { projectDir: s.project.dir, settings: s.analysis.settings }, { signal: abort.signal });
      const st = this.store.getState();
      for (const { stage, cached, seconds } of summary.stages) st.applyStageDone({ requestId: 0, stage, cached, seconds });
      st.analysisEnded('done');
      await this.loadGateMetrics();
    } catch (error) {
      const info = toErrorInfo(error);
      this.store.getState().analysisEnded(info.code === 'cancelled' ? 'cancelled' : 'error', info);
    } finally {
      if (this.analysisAbort === abort) this.analysisAbort = null;
    }
  }

  /** A run of the CRANE reference pipeline becomes the project's analysis; its heatmap is shown at once. */
  async openReferenceRun(files: Omit<Params<'openReferenceRun'>, 'projectDir'>): Promise<Result<'openReferenceRun'>> {
    const summary = await this.run('openReferenceRun', { projectDir: this.store.getState().project.dir, ...files });
    await this.loadGateMetrics();
    return summary;
  }

  cancelAnalysis(): void {
    this.analysisAbort?.abort();
  }

  async loadGateMetrics(): Promise<void> {
    const s = this.store.getState();
    s.setGateMetrics(loading(s.gates.metrics));
    try {
      const metrics = await this.run('getGateMetrics', { granularity: s.settings.current.granularity });
      this.store.getState().setGateMetrics(ready(metrics));
      this.requestPreview();
      void this.loadExpertMetrics();
      void this.loadPassMetrics();
    } catch (error) {
      this.store.getState().setGateMetrics(failed(this.store.getState().gates.metrics, toErrorInfo(error)));
    }
  }

  /** The layer × expert views; null (nothing to show) for a dense model. */
  loadExpertMetrics(): Promise<void> {
    return this.loadInto(
      () => this.store.getState().experts.metrics,
      (metrics) => this.store.getState().setExpertMetrics(metrics),
      () => this.run('getExpertMetrics', {}),
    );
  }

  /** A looped model's per-pass views; null (no pass switch) for a model without a loop. */
  loadPassMetrics(): Promise<void> {
    return this.loadInto(
      () => this.store.getState().passes.metrics,
      (metrics) => this.store.getState().setPassMetrics(metrics),
      () => this.run('getPassMetrics', {}),
    );
  }

  /** One engine view into its store slot: loading (keeping the last result), then the result or why it failed. */
  private async loadInto<T>(slot: () => Loadable<T>, store: (value: Loadable<T>) => void, fetch: () => Promise<T>): Promise<void> {
    store(loading(slot()));
    try {
      store(ready(await fetch()));
    } catch (error) {
      store(failed(slot(), toErrorInfo(error)));
    }
  }

  requestPreview(): void {
    if (this.api === null) return;
    this.store.getState().setPreviewPending(true);
    this.preview.request(this.store.getState().settings.current);
  }

  requestSpectrum(): void {
    const { selection, settings } = this.store.getState();
    if (this.api === null || selection.block === null) return;
    this.spectrum.request({ layer: selection.block.layer, key: selection.activationKey, tau: settings.current.tau, steepness: settings.current.steepness });
  }

  async inspectPane(index: PaneIndex): Promise<void> {
    const s = this.store.getState();
    const pane = s.sideBySide.panes[index];
    s.setPaneView(index, loading(s.sideBySide.views[index]));
    try {
      const method = methodOf(s, pane.method);
      const view = await this.run('inspectLayer', { block: pane.block, method, bins: 48, mapSize: 64 });
      this.store.getState().setPaneView(index, ready(view));
    } catch (error) {
      this.store.getState().setPaneView(index, failed(this.store.getState().sideBySide.views[index], toErrorInfo(error)));
    }
  }

  /** A looped model's per-pass contributions of a pane's block under its method; nothing to ask for a model without a loop. */
  inspectPanePasses(index: PaneIndex): Promise<void> {
    const s = this.store.getState();
    const slot = () => this.store.getState().sideBySide.passes[index];
    const store = (view: Loadable<BlockPasses | null>) => this.store.getState().setPanePasses(index, view);
    if (s.passes.metrics.result === null) {
      store(idle());
      return Promise.resolve();
    }
    const pane = s.sideBySide.panes[index];
    return this.loadInto(slot, store, () => this.run('getBlockPasses', { block: pane.block, method: methodOf(s, pane.method) }));
  }

  verify(method: MergeMethodName): Promise<void> {
    return this.verifyJobs.verify(method);
  }

  async exportCheckpoint(): Promise<void> {
    const s = this.store.getState();
    const { form } = s.exporting;
    this.exportAbort?.abort();
    const abort = (this.exportAbort = new AbortController());
    s.setExportJob({ status: 'running', fraction: 0, etaSeconds: null, summary: null, error: null });
    try {
      const summary = await this.run(
        'export',
        {
          outDir: form.outDir,
          dtype: form.dtype,
          shardBytes: shardBytesOf(form),
          method: methodOf(s, form.method),
          overwrite: form.overwrite,
        },
        { signal: abort.signal },
      );
      this.store.getState().setExportJob({ status: 'done', fraction: 1, summary });
    } catch (error) {
      const info = toErrorInfo(error);
      this.store.getState().setExportJob({ status: info.code === 'cancelled' ? 'cancelled' : 'error', error: info });
    } finally {
      if (this.exportAbort === abort) this.exportAbort = null;
    }
  }

  cancelExport(): void {
    this.exportAbort?.abort();
  }
}
