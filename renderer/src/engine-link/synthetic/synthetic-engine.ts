/**
 * An EngineApi answered in the page from SyntheticModel: long jobs report progress and honour
 * cancel like the real engine, instant ones answer on the next task.
 */
import type { CallOptions, EvaluationSet, EventName, EventPayload, Params, ProjectState, RequestName, Result } from '../../protocol.ts';
import { ANALYSIS_STAGES, DEFAULT_CRANE_SETTINGS, PROTOCOL_VERSION, ProtocolError } from '../../protocol.ts';
import type { EngineApi } from '../engine-api.ts';
import { syntheticExpertMetrics } from './synthetic-experts.ts';
import { syntheticLayerView } from './synthetic-layer-view.ts';
import { SyntheticModel, type SyntheticShape } from './synthetic-model.ts';
import { syntheticPair } from './synthetic-pair.ts';

type Listener = (payload: never) => void;

export class SyntheticEngine implements EngineApi {
  private readonly model: SyntheticModel;
  private readonly listeners = new Map<EventName, Set<Listener>>();
  private nextId = 1;
  private analyzed = false;
  /** Where the last analysis said Verify measures (its analysis settings). */
  private evaluation: EvaluationSet = { source: 'calibration' };
  /** Projects by folder, held in memory (what project.json would hold), and the open one. */
  private readonly projects = new Map<string, ProjectState['project']>();
  private openDir: string | null = null;

  constructor(
    shape: SyntheticShape,
    /** Milliseconds per progress tick of the long jobs (tests use 0). */
    private readonly tickMs = 60,
  ) {
    this.model = new SyntheticModel(shape);
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    this.listeners.set(event, set);
    set.add(listener as Listener);
    return () => set.delete(listener as Listener);
  }

  onClose(): () => void {
    return () => undefined;
  }

  async call<K extends RequestName>(method: K, params: Params<K>, options: CallOptions = {}): Promise<Result<K>> {
    const id = this.nextId++;
    await new Promise((resolve) => setTimeout(resolve, 0));
    return (await this.answer(method, params as never, id, options.signal)) as Result<K>;
  }

  private emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (p: EventPayload<E>) => void)(payload);
  }

  private requireAnalysis(): void {
    if (!this.analyzed) throw new ProtocolError('not-found', 'run the analysis first (synthetic engine)');
  }

  private async answer(method: RequestName, params: never, id: number, signal: AbortSignal | undefined): Promise<unknown> {
    switch (method) {
      case 'ping':
        return { protocolVersion: PROTOCOL_VERSION, now: Date.now() };
      case 'cancel':
        return { cancelled: false };
      case 'getProjectState':
        return this.openDir === null ? null : this.projectState(this.openDir);
      case 'openProject':
        return this.openProject((params as Params<'openProject'>).projectDir);
      case 'saveProject': {
        const p = params as Params<'saveProject'>;
        this.projects.set(p.projectDir, structuredClone(p.project));
        this.openDir = p.projectDir;
        return this.projectState(p.projectDir);
      }
      case 'listBuiltinPairs':
        return []; // its pairs are generated, none ship on disk
      case 'openPair': {
        const p = params as Params<'openPair'>;
        return syntheticPair(p.instruct, p.thinking, this.model.shape);
      }
      case 'analyze':
        for (const stage of ANALYSIS_STAGES) await this.job(id, stage, 8, signal);
        this.analyzed = true;
        this.evaluation = (params as Params<'analyze'>).settings.evaluation;
        return { projectDir: (params as Params<'analyze'>).projectDir, stages: ANALYSIS_STAGES.map((stage) => ({ stage, cached: false, seconds: (8 * this.tickMs) / 1000 })) };
      case 'getGateMetrics':
        this.requireAnalysis();
        return this.model.gateMetrics((params as Params<'getGateMetrics'>).granularity);
      case 'getExpertMetrics':
        this.requireAnalysis();
        return syntheticExpertMetrics(this.model.shape, this.model.gateMetrics('fine'));
      case 'getPassMetrics':
      case 'getBlockPasses':
        return null; // its models have no loop
      case 'preview': {
        this.requireAnalysis();
        const p = params as Params<'preview'>;
        return this.model.preview(p.settings, p.alphas);
      }
      case 'spectrum':
        this.requireAnalysis();
        return this.model.spectrum(params as Params<'spectrum'>);
      case 'inspectLayer': {
        this.requireAnalysis();
        const p = params as Params<'inspectLayer'>;
        const metrics = this.model.gateMetrics('coarse');
        const col = Math.max(0, metrics.groups.indexOf(p.block.group));
        const gate = metrics.gate.values[Math.min(p.block.layer, metrics.layers - 1) * metrics.groups.length + col] ?? 1;
        return syntheticLayerView(p.block, p.method, gate, p.bins, p.mapSize);
      }
      case 'verify':
        return this.verify(params as Params<'verify'>, id, signal);
      case 'export':
        return this.exportJob(params as Params<'export'>, id, signal);
      default:
        throw new ProtocolError('not-implemented', `${method}: not available in the synthetic engine`);
    }
  }

  private openProject(dir: string): ProjectState {
    if (!this.projects.has(dir)) this.projects.set(dir, { instruct: null, thinking: null, analysis: null, settings: DEFAULT_CRANE_SETTINGS, verified: [] });
    this.openDir = dir;
    return this.projectState(dir);
  }

  private projectState(dir: string): ProjectState {
    const project = structuredClone(this.projects.get(dir) as ProjectState['project']);
    return { projectDir: dir, project, stages: ANALYSIS_STAGES.map((stage) => ({ stage, state: this.analyzed ? 'cached' : 'missing' })) };
  }

  private async verify(p: Params<'verify'>, id: number, signal: AbortSignal | undefined): Promise<Result<'verify'>> {
    this.requireAnalysis();
    await this.job(id, 'verify', 10, signal);
    const settings = p.method.method === 'crane' ? p.method.settings : { alpha: 'lambda' in p.method ? p.method.lambda : 0.3 };
    const preview = p.method.method === 'crane' ? this.model.preview(p.method.settings, []) : null;
    const wobble = Math.sin(settings.alpha * 17) * 0.006;
    const base = { reasoning: 1.42, agent: 0.38 };
    const edited = preview
      ? { reasoning: base.reasoning + preview.deltaLossReasoning * 1.08 + wobble, agent: base.agent + preview.deltaLossAgent * 1.1 + wobble / 2 }
      : { reasoning: base.reasoning - 0.2 * settings.alpha, agent: base.agent + 0.35 * settings.alpha };
    const predicted = preview === null ? null : { reasoning: preview.deltaLossReasoning, agent: preview.deltaLossAgent };
    return { method: p.method, measuredOn: this.evaluation, edited, base, tokens: { reasoning: 18_432, agent: 6_144 }, seconds: (10 * this.tickMs) / 1000, predicted, finishedAt: new Date().toISOString() };
  }

  private async exportJob(p: Params<'export'>, id: number, signal: AbortSignal | undefined): Promise<Result<'export'>> {
    this.requireAnalysis();
    await this.job(id, 'export', 12, signal);
    const files = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors', 'model.safetensors.index.json', 'config.json', 'tokenizer.json', 'crane_recipe.json', 'crane_gate_table.json', 'crane_analysis.safetensors', 'README.md'];
    const recipe = { tool: 'crane-studio (synthetic engine)', method: p.method.method, dtype: p.dtype, shardBytes: p.shardBytes, settings: p.method.method === 'crane' ? { ...p.method.settings } : { ...p.method } };
    return { outDir: p.outDir, files, totalBytes: 2 * 1024 ** 3, recipe: JSON.parse(JSON.stringify(recipe)), seconds: (12 * this.tickMs) / 1000 };
  }

  private async job(requestId: number, stage: EventPayload<'progress'>['stage'], ticks: number, signal: AbortSignal | undefined): Promise<void> {
    this.emit('log', { level: 'info', message: `${stage}: started (synthetic)`, requestId });
    for (let t = 1; t <= ticks; t++) {
      await new Promise((resolve) => setTimeout(resolve, this.tickMs));
      if (signal?.aborted === true) {
        this.emit('log', { level: 'warn', message: `${stage}: cancelled`, requestId });
        throw new ProtocolError('cancelled', `${stage} was cancelled`);
      }
      this.emit('progress', { requestId, stage, fraction: t / ticks, etaSeconds: ((ticks - t) * this.tickMs) / 1000 });
    }
    this.emit('stageDone', { requestId, stage, cached: false, seconds: (ticks * this.tickMs) / 1000 });
  }
}
