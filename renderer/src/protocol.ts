/**
 * The protocol types the UI uses, named once. Everything comes from engine/protocol.ts, the
 * renderer's only door into engine/ (eslint enforces it).
 */
import type { EventPayload, Params, Result } from '../../engine/protocol.ts';

export type {
  AnalysisSettings,
  BlockOverride,
  CallOptions,
  CraneSettings,
  CraneBridge,
  EvaluationSet,
  ErrorCode,
  ErrorInfo,
  EventName,
  EventPayload,
  Granularity,
  MenuCommand,
  MergeMethod,
  MergeMethodName,
  MethodParameter,
  OpenRequest,
  ParameterValues,
  Params,
  RequestName,
  Result,
} from '../../engine/protocol.ts';
export { ANALYSIS_STAGES, EngineClient, ProtocolError, PROTOCOL_VERSION, connectDesktopEngine, connectWebSocket, engineUrl, formatBytes, hashName, SeededRandom } from '../../engine/protocol.ts';
// The settings contracts the UI shares with the engine: defaults and presets, the GSP mask, the α·S rule, the evaluation set's name.
export {
  blockScale, DEFAULT_ANALYSIS_KNOBS, DEFAULT_CRANE_SETTINGS, describeEvaluation, defaultSteepness, followsTau, maskWeight, overrideScale, PRESETS, STRENGTH_RANGE,
} from '../../engine/protocol.ts';
// The methods table: each method's label and editable parameters, which the Methods view's form follows.
export { METHODS, METHOD_NAMES, methodFromParameters, parameterError, parametersOf } from '../../engine/protocol.ts';
// The protected lm_head rows: derived from the pair's added tokens, edited by the user.
export { applyProtectedEdits, formatIdRanges, formatProtectedEdits, parseProtectedEdits } from '../../engine/protocol.ts';
// Architectures merged only from a reference run (Qwen3-Next): the note the pair report and Analysis show.
export { referenceOnlyNote } from '../../engine/protocol.ts';

export type Block = Params<'inspectLayer'>['block'];
export type ActivationKey = Params<'spectrum'>['key'];
export type ExportDtype = Params<'export'>['dtype'];
/** Any job's stage (progress events); the analysis stages are the ones a project's cache has. */
export type Stage = EventPayload<'progress'>['stage'];
export type AnalysisStage = Result<'analyze'>['stages'][number]['stage'];

export type PairSummary = Result<'openPair'>;
export type ProjectState = Result<'openProject'>;
/** A pair that ships with the studio, as the project that opens it. */
export type BuiltinProject = Result<'listBuiltinPairs'>[number];
export type GateMetrics = Result<'getGateMetrics'>;
export type Matrix = GateMetrics['gate'];
export type Preview = Result<'preview'>;
export type Spectrum = Result<'spectrum'>;
export type LayerView = Result<'inspectLayer'>;
export type TensorView = LayerView['tensors'][number];
export type Histogram = TensorView['delta'];
export type VerifyResult = Result<'verify'>;
export type ExportSummary = Result<'export'>;
