/**
 * loadCausalLM(checkpoint): the model runtime's entry point. Reads only config.json up front;
 * every method streams weights from the checkpoint as it needs them.
 *
 *   forwardLogits(ids, positions?)                 logits [rows, vocab]
 *   sequenceLosses(batch)                          per-sequence masked mean CE (no gradients)
 *   lossAndLayerGrads(batch, onLayer, options?)    loss + per-layer parameter gradients, streamed
 *   lossAndPassGrads(batch, onPart, options?)      the same, one part per (pass, layer) of a looped model
 *   captureActivations(sequences, consumer)        attn/ffn inputs at chosen positions, streamed
 *   linearInputMeans(sequences, consumer, statistic?)  mean |x| (or x²) at every Linear's input per sequence, streamed
 *   greedyDecode(prompt, options)                  argmax decoding with a KV cache
 *
 * A tfjs backend must be active (engine/tensor/backend.ts initBackend) before any call.
 * Unsupported architectures fail here with a CheckpointError naming config.json.
 */
import { parseModelSpec, type ModelSpec } from './config.ts';
import { greedyDecode, type DecodeOptions, type DecodeResult } from './decode.ts';
import { createContext, type ModelContext } from './forward.ts';
import { lossAndLayerGrads, lossAndPassGrads, type LayerGradsCallback, type LayerGradsOptions, type LossResult, type LossSequence } from './layer-grads.ts';
import type { PassGradsCallback } from './loop-grad-sums.ts';
import { forwardLogits, sequenceLosses, type Logits, type SequenceScore } from './scoring.ts';
import { captureActivations, type ActivationConsumer, type CaptureOptions, type CaptureSequence } from './activations.ts';
import { linearInputMeans, type LinearInputMeans, type LinearInputStatistic } from './linear-inputs.ts';
import type { WeightSource } from './weights.ts';

export interface CausalLM {
  readonly spec: ModelSpec;
  readonly context: ModelContext;
  forwardLogits(ids: ArrayLike<number>, positions?: readonly number[]): Promise<Logits>;
  sequenceLosses(batch: readonly LossSequence[]): Promise<SequenceScore[]>;
  lossAndLayerGrads(batch: readonly LossSequence[], onLayer: LayerGradsCallback, options?: LayerGradsOptions): Promise<LossResult>;
  lossAndPassGrads(batch: readonly LossSequence[], onPart: PassGradsCallback, options?: LayerGradsOptions): Promise<LossResult>;
  captureActivations(sequences: readonly CaptureSequence[], consumer: ActivationConsumer, options?: CaptureOptions): Promise<void>;
  linearInputMeans(sequences: readonly ArrayLike<number>[], consumer: (m: LinearInputMeans) => void | Promise<void>, statistic?: LinearInputStatistic): Promise<void>;
  greedyDecode(prompt: ArrayLike<number>, options: DecodeOptions): Promise<DecodeResult>;
}

export function loadCausalLM(checkpoint: WeightSource): CausalLM {
  const spec = parseModelSpec(checkpoint.config, checkpoint.dir);
  const context = createContext(checkpoint, spec);
  return {
    spec,
    context,
    forwardLogits: (ids, positions) => forwardLogits(context, ids, positions),
    sequenceLosses: (batch) => sequenceLosses(context, batch),
    lossAndLayerGrads: (batch, onLayer, options) => lossAndLayerGrads(context, batch, onLayer, options),
    lossAndPassGrads: (batch, onPart, options) => lossAndPassGrads(context, batch, onPart, options),
    captureActivations: (sequences, consumer, options) => captureActivations(context, sequences, consumer, options),
    linearInputMeans: (sequences, consumer, statistic) => linearInputMeans(context, sequences, consumer, statistic),
    greedyDecode: (prompt, options) => greedyDecode(context, prompt, options),
  };
}
