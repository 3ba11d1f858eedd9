/**
 * Whether the pair's model has MoE routers — the tensors the Router rule (SLERP at t = α × the
 * Router setting) edits — so the controls offer that setting only where it changes the export.
 * Read from the config's model_type and architectures (Qwen3-MoE, Qwen2-MoE, Qwen3-Next,
 * Mixtral, …: every routed family names itself so), or known from an analysis with experts.
 */
const ROUTED_MODEL_TYPE = /(?:^|_)moe$|^mixtral$|^qwen3_next$|^deepseek/;
const ROUTED_ARCHITECTURE = /Moe|Mixtral|Qwen3Next|Deepseek/;

export interface ModelKind {
  readonly modelType: string | null;
  readonly architectures: readonly string[];
}

export function hasRouters(model: ModelKind | null): boolean {
  if (model === null) return false;
  return (model.modelType !== null && ROUTED_MODEL_TYPE.test(model.modelType)) || model.architectures.some((a) => ROUTED_ARCHITECTURE.test(a));
}
