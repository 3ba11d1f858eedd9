/**
 * The protocol types the UI uses, named once. Everything comes from engine/protocol.ts, the
 * renderer's only door into engine/ (eslint enforces it).
 */
import type { EventPayload, Params, Result } from '../../engine/protocol.ts';

export type {
  CallOptions,
  CraneBridge,
  ErrorCode,
  ErrorInfo,
  EventName,
  EventPayload,
  MenuCommand,
  OpenRequest,
  Params,
  RequestName,
  Result,
} from '../../engine/protocol.ts';
export { ANALYSIS_STAGES, EngineClient, ProtocolError, PROTOCOL_VERSION, connectDesktopEngine, connectWebSocket, engineUrl, formatBytes, hashName, SeededRandom } from '../../engine/protocol.ts';

export type CraneSettings = Params<'preview'>['settings'];
export type AnalysisSettings = Params<'analyze'>['settings'];
export type MergeMethod = Params<'verify'>['method'];
export type MergeMethodKind = MergeMethod['kind'];
export type Block = Params<'inspectLayer'>['block'];
export type BlockOverride = CraneSettings['overrides'][number];
export type ActivationKey = Params<'spectrum'>['key'];
export type ExportDtype = Params<'export'>['dtype'];
export type Grouping = CraneSettings['grouping'];
/** Any job's stage (progress events); the analysis stages are the ones a project's cache has. */
export type Stage = EventPayload<'progress'>['stage'];
export type AnalysisStage = Result<'analyze'>['stages'][number]['stage'];

export type PairSummary = Result<'openPair'>;
export type ProjectState = Result<'openProject'>;
export type GateMetrics = Result<'getGateMetrics'>;
export type Matrix = GateMetrics['gate'];
export type Preview = Result<'preview'>;
export type Spectrum = Result<'spectrum'>;
export type LayerView = Result<'inspectLayer'>;
export type TensorView = LayerView['tensors'][number];
export type Histogram = TensorView['delta'];
export type VerifyResult = Result<'verify'>;
export type ExportSummary = Result<'export'>;
