/**
 * What a measurement asks of a shared forward pass (shared-forward.ts), as data a worker thread
 * can run: a sequence, what to read of it at every layer, and where the readings go.
 *
 *   activationRequest(ids, positions, sequence, consumer)   attn/ffn inputs at positions (model/activations.ts)
 *   meansRequest(ids, statistic, sequence, consumer)        mean |x| or x² at every Linear input (model/linear-inputs.ts)
 *   routingRequest(ids, sequence, consumer)                 MoE routing (model/router-capture.ts)
 *   tapOf(ids, read, deliver)                               the layer tap that takes those readings
 *
 * `sequence` is the index the readings carry (the sequence's place in its measurement). The
 * request's `read` is plain data (structured-cloneable), its `deliver` stays in the calling thread:
 * a worker runs tapOf with a deliver that posts the record, the caller hands it to `deliver`.
 */
import { activationTap, type LayerActivations } from '../model/activations.ts';
import { linearInputTap, type LinearInputMeans, type LinearInputStatistic } from '../model/linear-inputs.ts';
import { routingTap, type LayerRouting } from '../model/router-capture.ts';
import type { LayerTap } from '../model/tapped-forward.ts';

export type LayerReading =
  | { readonly kind: 'activations'; readonly sequence: number; readonly positions: readonly number[] }
  | { readonly kind: 'means'; readonly sequence: number; readonly statistic: LinearInputStatistic }
  | { readonly kind: 'routing'; readonly sequence: number };

export type ForwardRecord =
  | { readonly kind: 'activations'; readonly value: LayerActivations }
  | { readonly kind: 'means'; readonly value: LinearInputMeans }
  | { readonly kind: 'routing'; readonly value: LayerRouting };

export type RecordSink = (record: ForwardRecord) => void | Promise<void>;

export interface ForwardRequest {
  readonly ids: readonly number[];
  readonly read: LayerReading;
  readonly deliver: RecordSink;
}

type Consumer<T> = (value: T) => void | Promise<void>;

export function activationRequest(ids: readonly number[], positions: readonly number[], sequence: number, consumer: Consumer<LayerActivations>): ForwardRequest {
  // Refused here, before any pass: a position outside the sequence.
  activationTap(ids, positions, sequence, consumer);
  return { ids, read: { kind: 'activations', sequence, positions }, deliver: (r) => (r.kind === 'activations' ? consumer(r.value) : undefined) };
}

export function meansRequest(ids: readonly number[], statistic: LinearInputStatistic, sequence: number, consumer: Consumer<LinearInputMeans>): ForwardRequest {
  linearInputTap(ids, sequence, statistic, consumer);
  return { ids, read: { kind: 'means', sequence, statistic }, deliver: (r) => (r.kind === 'means' ? consumer(r.value) : undefined) };
}

export function routingRequest(ids: readonly number[], sequence: number, consumer: Consumer<LayerRouting>): ForwardRequest {
  return { ids, read: { kind: 'routing', sequence }, deliver: (r) => (r.kind === 'routing' ? consumer(r.value) : undefined) };
}

export function tapOf(ids: ArrayLike<number>, read: LayerReading, deliver: RecordSink): LayerTap {
  switch (read.kind) {
    case 'activations': return activationTap(ids, read.positions, read.sequence, (value) => deliver({ kind: 'activations', value }));
    case 'means': return linearInputTap(ids, read.sequence, read.statistic, (value) => deliver({ kind: 'means', value }));
    case 'routing': return routingTap(read.sequence, (value) => deliver({ kind: 'routing', value }));
  }
}
